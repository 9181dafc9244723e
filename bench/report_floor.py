#!/usr/bin/env python3
"""The kernel's part of writing a 317 MB report on this machine, without leadsync.

What the JSON report's end costs at the least, whatever the code: the 1M-row report is 317 MB,
its head comes first and is known only after the last row, so its bytes reach their place (and
the disk) only after the run. Each line times one step on a file of that size in the folder
given (default: target/bench), 3 rounds:

  python3 bench/report_floor.py [FOLDER]

- write: 317 MB into fresh page-cache pages, 1 MiB at a time (CPU);
- fdatasync: those pages to the disk (wall; the CPU is near zero);
- copy: copy_file_range into a new file (what the report's finish does today);
- move: copy_file_range within the file, 1 MiB down (the body-first trial);
- unlink synced: deleting a report that reached the disk (what replacing one costs);
- rename over: an unsynced 317 MB file renamed over a synced one, where ext4 flushes the new
  file first (`auto_da_alloc`) whether or not the writer asked for a sync.
"""
import os
import resource
import sys
import time

SIZE_MIB = 317
CHUNK = 1 << 20


def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(step):
    wall, used = time.time(), cpu()
    step()
    return time.time() - wall, cpu() - used


def write_all(fd, data):
    for _ in range(SIZE_MIB):
        os.write(fd, data)


def copy_range(src, dst, length, src_off, dst_off):
    while length > 0:
        done = os.copy_file_range(src, dst, length, src_off, dst_off)
        length, src_off, dst_off = length - done, src_off + done, dst_off + done


def rename_over(path, new, data):
    """Makes `path` a synced file, then times renaming an unsynced `new` over it."""
    for name, sync in ((path, True), (new, False)):
        fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_TRUNC)
        write_all(fd, data)
        if sync:
            os.fdatasync(fd)
        os.close(fd)
    wall, used = timed(lambda: os.rename(new, path))
    os.unlink(path)
    return wall, used


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "target/bench"
    path, copy = os.path.join(folder, "floor.bin"), os.path.join(folder, "floor_copy.bin")
    data = os.urandom(CHUNK)
    for round_ in range(1, 4):
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC)
        steps = {"write": timed(lambda: write_all(fd, data))}
        steps["fdatasync"] = timed(lambda: os.fdatasync(fd))
        out = os.open(copy, os.O_RDWR | os.O_CREAT | os.O_TRUNC)
        steps["copy"] = timed(lambda: copy_range(fd, out, SIZE_MIB * CHUNK, 0, 0))
        os.close(out)
        os.unlink(copy)

        def move_down():
            for i in range(1, SIZE_MIB):
                copy_range(fd, fd, CHUNK, i * CHUNK, (i - 1) * CHUNK)

        steps["move"] = timed(move_down)
        os.fdatasync(fd)
        os.close(fd)
        steps["unlink synced"] = timed(lambda: os.unlink(path))
        steps["rename over"] = rename_over(path, copy, data)
        line = "  ".join(f"{name} {wall:.3f} s (CPU {used:.3f})" for name, (wall, used) in steps.items())
        print(f"round {round_}: {line}")


if __name__ == "__main__":
    main()
