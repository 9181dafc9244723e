#!/usr/bin/env python3
"""Crafted and damaged inputs for leadsync's limits, and how the binary fares on each.

    scripts/crafted.py [OUT_DIR] [--bin PATH] [--only SUBSTRING] [--generate-only]

Writes every file (each at most 16 MiB on disk) to OUT_DIR (default target/crafted), then
runs `leadsync import FILE --dry-run --offline -q --campaign 1` on each under /usr/bin/time and prints the
exit code, the wall time, the peak RSS and the first line of stderr. One file is also served
over a loopback URL. Python 3 standard library only; deterministic.
"""

import argparse
import functools
import http.server
import os
import struct
import subprocess
import sys
import threading
import zipfile
import zlib

MIB = 1024 * 1024
GIB = 1024 * MIB
CHUNK = 4 * MIB

# --------------------------------------------------------------------------- zip workbooks

CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
    'package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.'
    'openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="'
    'application/xml"/></Types>'
)
ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats'
    '.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.'
    'openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/{wb}"/>'
    '</Relationships>'
)
WB_RELS_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats'
    '.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.'
    'openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/'
    'sheet1.{ext}"/>'
)
WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/'
    'spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships"><sheets><sheet name="Leads" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
SHEET_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/'
    'spreadsheetml/2006/main"><sheetData>'
)
SHEET_ROWS = (
    '<row r="1"><c r="A1" t="inlineStr"><is><t>Name</t></is></c><c r="B1" t="inlineStr"><is>'
    '<t>Phone</t></is></c></row><row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="inlineStr">'
    '<is><t>+49 30 1234567</t></is></c></row>'
)
SHEET_TAIL = "</sheetData></worksheet>"


def repeated(piece, total):
    """Yields `piece` repeated to about `total` bytes, in large chunks."""
    block = piece * max(1, CHUNK // len(piece))
    left = total
    while left > 0:
        out = block[: min(len(block), left)] if left < len(block) else block
        left -= len(out)
        yield out


def write_part(zf, name, pieces, stored=False):
    """Streams a part into the zip without holding it in memory."""
    info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    with zf.open(info, "w", force_zip64=True) as out:
        for piece in pieces:
            out.write(piece.encode() if isinstance(piece, str) else piece)


def xlsx(path, shared=(b'<si><t>Anna</t></si>',), styles=None, extra_rels=None, extra=None, sst_attrs=""):
    with zipfile.ZipFile(path, "w") as zf:
        write_part(zf, "[Content_Types].xml", [CONTENT_TYPES])
        write_part(zf, "_rels/.rels", [ROOT_RELS.format(wb="workbook.xml")])
        write_part(zf, "xl/workbook.xml", [WORKBOOK])
        rels = [WB_RELS_HEAD.format(ext="xml")]
        rels.extend(extra_rels or [])
        rels.append("</Relationships>")
        write_part(zf, "xl/_rels/workbook.xml.rels", rels)
        if "xl/worksheets/sheet1.xml" not in (extra or {}):
            write_part(zf, "xl/worksheets/sheet1.xml", [SHEET_HEAD, SHEET_ROWS, SHEET_TAIL])
        head = '<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"' + sst_attrs + '>'
        write_part(zf, "xl/sharedStrings.xml", [head, *shared, "</sst>"])
        if styles is not None:
            write_part(zf, "xl/styles.xml", styles)
        for name, pieces in (extra or {}).items():
            write_part(zf, name, pieces)


def ods(path, body, truncate=None):
    head = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:'
        'oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:'
        'opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:'
        'text:1.0" office:version="1.2"><office:body><office:spreadsheet><table:table '
        'table:name="Leads"><table:table-row><table:table-cell office:value-type="string">'
        "<text:p>Name</text:p></table:table-cell><table:table-cell office:value-type="
        '"string"><text:p>Phone</text:p></table:table-cell></table:table-row>'
    )
    tail = "</table:table></office:spreadsheet></office:body></office:document-content>"
    with zipfile.ZipFile(path, "w") as zf:
        write_part(zf, "mimetype", ["application/vnd.oasis.opendocument.spreadsheet"], stored=True)
        write_part(zf, "content.xml", [head, *body, tail])
        write_part(zf, "META-INF/manifest.xml", ['<?xml version="1.0"?><manifest:manifest/>'])
    if truncate:
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) // truncate)


def ods_cell(text_pieces):
    return ['<table:table-row><table:table-cell office:value-type="string"><text:p>', *text_pieces,
            "</text:p></table:table-cell></table:table-row>"]


def xlsb_record(typ, data):
    out = bytearray()
    out += bytes([typ & 0x7F | 0x80, typ >> 7]) if typ >= 0x80 else bytes([typ])
    n = len(data)
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            break
    return bytes(out) + data


def xlsb(path, shared_pieces):
    with zipfile.ZipFile(path, "w") as zf:
        write_part(zf, "[Content_Types].xml", [CONTENT_TYPES])
        write_part(zf, "_rels/.rels", [ROOT_RELS.format(wb="workbook.bin")])
        write_part(zf, "xl/_rels/workbook.bin.rels", [WB_RELS_HEAD.format(ext="bin"), "</Relationships>"])
        write_part(zf, "xl/workbook.bin", [xlsb_record(0x83, b""), xlsb_record(0x84, b"")])
        write_part(zf, "xl/worksheets/sheet1.bin", [xlsb_record(0x81, b""), xlsb_record(0x82, b"")])
        write_part(zf, "xl/sharedStrings.bin", shared_pieces)


# --------------------------------------------------------------------------- XLS (BIFF8 in OLE)

ENDOFCHAIN, FREESECT, FATSECT, NOSTREAM = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD, 0xFFFFFFFF


def biff(typ, data=b""):
    return struct.pack("<HH", typ, len(data)) + data


def short_name(name):
    return bytes([len(name), 0]) + name.encode("latin-1")


def xls_stream(sheet_records, sst=None):
    """A globals substream with one BoundSheet, then the sheet's substream."""
    def globals_(pos):
        out = biff(0x0809, struct.pack("<HHHHII", 0x0600, 0x0005, 0, 0, 0, 0))
        out += biff(0x0042, struct.pack("<H", 1200))
        if sst is not None:
            out += sst
        out += biff(0x0085, struct.pack("<IBB", pos, 0, 0) + short_name("Leads"))
        return out + biff(0x000A)
    pos = len(globals_(0))
    sheet = biff(0x0809, struct.pack("<HHHHII", 0x0600, 0x0010, 0, 0, 0, 0))
    sheet += b"".join(sheet_records) + biff(0x000A)
    return globals_(pos) + sheet


def label(row, col, text):
    return biff(0x0204, struct.pack("<HHHHB", row, col, 0, len(text), 0) + text.encode("latin-1"))


def number(row, col, value):
    return biff(0x0203, struct.pack("<HHHd", row, col, 0, value))


HEADER_CELLS = [label(0, 0, "Name"), label(0, 1, "Phone"), label(1, 0, "Anna"), label(1, 1, "+49 30 1234567")]


def cfb(stream, declared_len=None, loop=False, fat_repeats=1):
    """A compound file with one `Workbook` stream in regular 512-byte sectors."""
    ss = 512
    stream = stream + b"\0" * (max(4096, -(-len(stream) // ss) * ss) - len(stream))
    n = len(stream) // ss
    fat_secs = 1
    while (n + 1 + fat_secs) > fat_secs * 128:
        fat_secs += 1
    dir_sec, fat_start = n, n + 1
    fat = [i + 1 for i in range(n - 1)] + [0 if loop else ENDOFCHAIN, ENDOFCHAIN] + [FATSECT] * fat_secs
    fat += [FREESECT] * (fat_secs * 128 - len(fat))
    difat = [fat_start + i for i in range(fat_secs)] * fat_repeats
    difat = (difat + [FREESECT] * 109)[:109]
    header = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1" + b"\0" * 16
    header += struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6) + b"\0" * 6
    header += struct.pack("<IIIIIIII", 0, min(fat_secs * fat_repeats, 109), dir_sec, 0, 4096, ENDOFCHAIN, 0, ENDOFCHAIN)
    header += struct.pack("<I", 0) + struct.pack("<109I", *difat)

    def entry(name, typ, child, start, size):
        raw = (name + "\0").encode("utf-16-le")
        return (raw + b"\0" * (64 - len(raw)) + struct.pack("<HBB", len(raw), typ, 1)
                + struct.pack("<III", NOSTREAM, NOSTREAM, child) + b"\0" * 36
                + struct.pack("<IQ", start, size))

    size = len(stream) if declared_len is None else declared_len
    directory = entry("Root Entry", 5, 1, ENDOFCHAIN, 0) + entry("Workbook", 2, NOSTREAM, 0, size)
    directory += b"\0" * (ss - len(directory))
    return header + stream + directory + struct.pack(f"<{len(fat)}I", *fat)


def sst_record(count):
    """An SST of `count` empty strings (3 bytes each), continued over CONTINUE records."""
    body = b"\0\0\0" * count
    first, rest = body[: 8216 - 8216 % 3], body[8216 - 8216 % 3:]
    out = biff(0x00FC, struct.pack("<II", count, count) + first)
    step = 8223 - 8223 % 3
    for i in range(0, len(rest), step):
        # A string never straddles these records (3-byte strings, multiple-of-3 pieces).
        out += biff(0x003C, rest[i:i + step])
    return out


def dimensions(rows, cols):
    return biff(0x0200, struct.pack("<IIHHH", 0, rows, 0, cols, 0))


# --------------------------------------------------------------------------- the files


def files():
    """(name, description, writer(path)) for every crafted file."""
    gib_a = lambda: repeated(b"a", GIB)  # noqa: E731
    return [
        ("xlsx_cell_1gib.xlsx", "XLSX, one shared string inflating to 1 GiB",
         lambda p: xlsx(p, shared=[b"<si><t>", *gib_a(), b"</t></si>"])),
        ("xlsx_inline_900mib.xlsx", "XLSX, an inline cell of 900 MiB split by comments",
         lambda p: xlsx(p, extra={"xl/worksheets/sheet1.xml": [
             SHEET_HEAD, SHEET_ROWS, '<row r="3"><c r="A3" t="inlineStr"><is><t>',
             *repeated(b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa<!---->", 900 * MIB),
             "</t></is></c></row>", SHEET_TAIL]})),
        ("xlsx_41m_strings.xlsx", "XLSX, 41 million shared strings",
         lambda p: xlsx(p, shared=[b'<si><t>Anna</t></si>', *repeated(b"<si><t>x</t></si>", 41_000_000 * 17)])),
        ("xlsx_sst_count.xlsx", "XLSX, uniqueCount of 10^10 (calamine reserves it)",
         lambda p: xlsx(p, sst_attrs=' uniqueCount="10000000000"')),
        ("xlsx_styles.xlsx", "XLSX, styles.xml with 20 million <xf/>",
         lambda p: xlsx(p, styles=['<?xml version="1.0"?><styleSheet><cellXfs>',
                                   *repeated(b"<xf/>", 20_000_000 * 5), "</cellXfs></styleSheet>"])),
        ("xlsx_deep_styles.xlsx", "XLSX, styles.xml nested 50 million elements deep",
         lambda p: xlsx(p, styles=['<?xml version="1.0"?><styleSheet>', *repeated(b"<a>", 150 * MIB),
                                   "</styleSheet>"])),
        ("xlsx_rels.xlsx", "XLSX, 10 million relationships",
         lambda p: xlsx(p, extra_rels=repeated(b'<Relationship Id="r" Target="x" Type="t"/>', 10_000_000 * 42))),
        ("xlsx_zip_bomb.xlsx", "XLSX, a 1.5 GiB part of zeros",
         lambda p: xlsx(p, extra={"xl/media/image1.png": repeated(b"\0", 3 * GIB // 2)})),
        ("xlsx_huge_tag.xlsx", "XLSX, a 900 MiB attribute value",
         lambda p: xlsx(p, extra={"xl/worksheets/sheet1.xml": [
             SHEET_HEAD, '<row r="1" x="', *repeated(b"a", 900 * MIB), '"/>', SHEET_TAIL]})),
        ("ods_cell_1gib.ods", "ODS, one cell inflating to 1 GiB",
         lambda p: ods(p, ods_cell(gib_a()))),
        ("ods_spaces.ods", "ODS, <text:s text:c=\"2000000000\"/> (2 billion spaces)",
         lambda p: ods(p, ods_cell(['<text:s text:c="2000000000"/>']))),
        ("ods_repeats.ods", "ODS, a 1 KiB cell repeated 16,384 columns x 1M rows",
         lambda p: ods(p, ['<table:table-row table:number-rows-repeated="1000000">'
                           '<table:table-cell table:number-columns-repeated="16384" '
                           'office:value-type="string"><text:p>' + "x" * 1024 +
                           "</text:p></table:table-cell></table:table-row>"])),
        ("ods_truncated.ods", "ODS, a 1 MB file cut in half (damaged)",
         lambda p: ods(p, ods_cell([os.urandom(0) + b"y" * 5_000_000]), truncate=2)),
        ("ods_garbage.ods", "ODS, content.xml of random bytes (damaged)",
         lambda p: garbage_ods(p)),
        ("csv_2m_columns.csv", "CSV, a header of 2 million columns",
         lambda p: open(p, "wb").write(b"Name,Phone" + b"," * 2_000_000 + b"\nAnna,+49301234567\n")),
        ("xlsb_huge_record.xlsb", "XLSB, a record declaring 256 MiB",
         lambda p: xlsb(p, [xlsb_record(0x9F, struct.pack("<II", 1, 1)), b"\x13\xff\xff\xff\x7f" + b"\0" * 64])),
        ("xlsb_41m_strings.xlsb", "XLSB, 41 million shared strings",
         lambda p: xlsb(p, [xlsb_record(0x9F, struct.pack("<II", 41_000_000, 41_000_000)),
                            *repeated(xlsb_record(0x13, b"\0\1\0\0\0x\0"), 41_000_000 * 9)])),
        ("xls_far_cells.xls", "XLS, two cells at A1 and IV65536 (16.7M-cell range)",
         lambda p: write(p, cfb(xls_stream(HEADER_CELLS + [number(65535, 255, 1.0)])))),
        ("xls_dimensions.xls", "XLS, a Dimensions record of 1M rows x 256 columns",
         lambda p: write(p, cfb(xls_stream([dimensions(1_000_000, 256)] + HEADER_CELLS)))),
        ("xls_sst_2m.xls", "XLS, 2.2 million shared strings (within limits)",
         lambda p: write(p, cfb(xls_stream(HEADER_CELLS, sst=sst_record(2_200_000))))),
        ("xls_chain_loop.xls", "XLS, a sector chain looping with a 4 GiB declared size",
         lambda p: write(p, cfb(xls_stream(HEADER_CELLS), declared_len=0xFFFFFFFF, loop=True))),
        ("xls_difat_repeat.xls", "XLS, the DIFAT naming one FAT sector 109 times",
         lambda p: write(p, cfb(xls_stream(HEADER_CELLS), fat_repeats=109))),
        ("xls_truncated.xls", "XLS, cut in half (damaged)",
         lambda p: write(p, cfb(xls_stream(HEADER_CELLS + [label(r, 0, "x" * 200) for r in range(2, 200)]))[:20000])),
        ("xls_garbage.xls", "XLS, a Workbook stream of random bytes (damaged)",
         lambda p: write(p, cfb(bytes(random_bytes(64 * 1024))))),
        ("xls_valid.xls", "XLS, a small valid workbook (control)",
         lambda p: write(p, cfb(xls_stream(HEADER_CELLS)))),
    ]


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def random_bytes(n, seed=8):
    """Deterministic noise (a linear congruential generator), so runs compare."""
    x = seed
    for _ in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
        yield x >> 56


def garbage_ods(path):
    with zipfile.ZipFile(path, "w") as zf:
        write_part(zf, "mimetype", ["application/vnd.oasis.opendocument.spreadsheet"], stored=True)
        write_part(zf, "content.xml", [bytes(random_bytes(256 * 1024))])


# --------------------------------------------------------------------------- running


def run(binary, target, label):
    timing = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M", binary, "import", target, "--dry-run", "--offline", "-q",
         "--campaign", "1"],
        capture_output=True, text=True, errors="replace", timeout=600,
    )
    lines = timing.stderr.strip().splitlines()
    secs, kib = lines[-1].split()
    message = next((l for l in lines if l.startswith("error")), "")
    code = timing.returncode
    print(f"| {label} | {code} | {float(secs):.2f} s | {int(kib) / 1024:.0f} MiB | {message[:160]} |", flush=True)
    return code, float(secs), int(kib) / 1024


def serve(directory):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=directory)
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default="target/crafted")
    ap.add_argument("--bin", default="target/release/leadsync")
    ap.add_argument("--only", default="")
    ap.add_argument("--generate-only", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    chosen = [f for f in files() if args.only in f[0]]
    for name, _, writer in chosen:
        path = os.path.join(args.out, name)
        if not os.path.exists(path):
            try:
                writer(path)
            except BaseException:
                os.remove(path)
                raise
        size = os.path.getsize(path)
        assert size <= 16 * MIB, f"{name} is {size} bytes"
    if args.generate_only:
        return
    print("| file | exit | time | peak RSS | first error line |")
    print("|---|---|---|---|---|")
    for name, description, _ in chosen:
        path = os.path.join(args.out, name)
        run(args.bin, path, f"{description} (`{name}`, {os.path.getsize(path) / MIB:.1f} MiB)")
    if not args.only or "url" in args.only or "xlsx_cell_1gib" in args.only:
        server = serve(args.out)
        url = f"http://127.0.0.1:{server.server_address[1]}/xlsx_cell_1gib.xlsx"
        if os.path.exists(os.path.join(args.out, "xlsx_cell_1gib.xlsx")):
            run(args.bin, url, "the 1 GiB-cell XLSX from a loopback URL")
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
