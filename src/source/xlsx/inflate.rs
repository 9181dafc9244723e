//! A worksheet part inflated on a thread of its own, a few chunks ahead of its reader: on a
//! machine of two cores the inflating (a seventh of reading a sheet) leaves the path that
//! every row waits on. Buffers go back to the thread to be filled again, so a part of any
//! size costs the same few chunks of memory.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};

const CHUNK: usize = 256 * 1024;
/// Chunks inflated ahead of the reader.
const AHEAD: usize = 4;

type Filled = io::Result<Vec<u8>>;

/// The inflated bytes of one part, as they come from the inflating thread.
pub(super) struct Inflated {
    filled: Receiver<Filled>,
    empty: Sender<Vec<u8>>,
    current: Vec<u8>,
    at: usize,
    done: bool,
}

impl Inflated {
    /// Starts inflating the part `part` of the zip file at `path`.
    pub(super) fn start(path: PathBuf, part: String) -> io::Result<Inflated> {
        let (filled_tx, filled) = sync_channel(AHEAD);
        let (empty, empty_rx) = channel();
        std::thread::Builder::new().name("leadsync-inflate".to_owned()).spawn(move || {
            send_failure(&filled_tx, || inflate(&path, &part, &filled_tx, &empty_rx));
        })?;
        Ok(Inflated { filled, empty, current: Vec::new(), at: 0, done: false })
    }
}

/// Runs `work` and sends the reader its error or panic, so a part that stops early is an
/// error and never a sheet that looks shorter than it is.
fn send_failure(filled: &SyncSender<Filled>, work: impl FnOnce() -> io::Result<()>) {
    let failed = match catch_unwind(AssertUnwindSafe(work)) {
        Ok(Ok(())) => return,
        Ok(Err(e)) => e,
        Err(_) => io::Error::other("the part could not be inflated"),
    };
    let _ = filled.send(Err(failed));
}

/// Sends the part's bytes chunk by chunk, then an empty chunk; stops when nobody listens.
fn inflate(
    path: &PathBuf,
    part: &str,
    filled: &SyncSender<Filled>,
    empty: &Receiver<Vec<u8>>,
) -> io::Result<()> {
    let mut zip =
        zip::ZipArchive::new(BufReader::new(File::open(path)?)).map_err(io::Error::other)?;
    let mut part = zip.by_name(part).map_err(io::Error::other)?;
    loop {
        let mut chunk = empty.try_recv().unwrap_or_default();
        chunk.resize(CHUNK, 0);
        let mut len = 0;
        while len < CHUNK {
            match part.read(&mut chunk[len..]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        chunk.truncate(len);
        if filled.send(Ok(chunk)).is_err() || len == 0 {
            return Ok(());
        }
    }
}

impl Read for Inflated {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.current.len() {
            if self.done {
                return Ok(0);
            }
            // The thread ends every part with an empty chunk or an error; silence before
            // either means the part was cut short, which must not pass for its end.
            let next = self.filled.recv().unwrap_or_else(|_| Err(cut_short()))?;
            let spent = std::mem::replace(&mut self.current, next);
            let _ = self.empty.send(spent);
            self.at = 0;
            self.done = self.current.is_empty();
        }
        let n = buf.len().min(self.current.len() - self.at);
        buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn cut_short() -> io::Error {
    io::Error::other("the part stopped before its end")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Cursor, Write};

    fn reader(filled: Receiver<Filled>) -> Inflated {
        let (empty, _) = channel();
        Inflated { filled, empty, current: Vec::new(), at: 0, done: false }
    }

    fn read_all(mut inflated: Inflated) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        inflated.read_to_end(&mut bytes).map(|_| bytes)
    }

    #[test]
    fn a_panic_while_inflating_reaches_the_reader_as_an_error() {
        let (filled_tx, filled) = sync_channel(AHEAD);
        std::thread::spawn(move || {
            send_failure(&filled_tx, || {
                filled_tx.send(Ok(b"<row>".to_vec())).unwrap();
                panic!("a damaged stream");
            })
        });
        let error = read_all(reader(filled)).unwrap_err();
        assert!(error.to_string().contains("could not be inflated"), "{error}");
    }

    #[test]
    fn a_part_cut_short_is_an_error_not_an_end() {
        let (filled_tx, filled) = sync_channel(AHEAD);
        filled_tx.send(Ok(b"<row>".to_vec())).unwrap();
        drop(filled_tx);
        let error = read_all(reader(filled)).unwrap_err();
        assert!(error.to_string().contains("before its end"), "{error}");
    }

    /// A zip of one stored part `p` whose bytes are `body`, then with `body` changed on disk
    /// behind the zip's checksum.
    fn zip_with_changed_part(dir: &std::path::Path, body: &[u8]) -> PathBuf {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        zip.start_file("p", stored).unwrap();
        zip.write_all(body).unwrap();
        let mut bytes = zip.finish().unwrap().into_inner();
        let at = bytes.windows(body.len()).position(|w| w == body).unwrap();
        bytes[at + body.len() / 2] ^= 0x20;
        let path = dir.join("changed.zip");
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn whole_parts_arrive_whole_and_a_checksum_mismatch_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let body: Vec<u8> = (0..3 * CHUNK + 17).map(|i| b'a' + (i % 26) as u8).collect();
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        zip.start_file("p", zip::write::SimpleFileOptions::default()).unwrap();
        zip.write_all(&body).unwrap();
        let whole = dir.path().join("whole.zip");
        std::fs::write(&whole, zip.finish().unwrap().into_inner()).unwrap();
        let inflated = Inflated::start(whole, "p".to_owned()).unwrap();
        assert_eq!(read_all(inflated).unwrap(), body, "every chunk, in order");

        let changed = zip_with_changed_part(dir.path(), &body[..1000]);
        let inflated = Inflated::start(changed, "p".to_owned()).unwrap();
        assert!(read_all(inflated).is_err(), "bytes that fail the zip's checksum are refused");
    }
}
