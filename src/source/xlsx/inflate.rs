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
            let inflated =
                catch_unwind(AssertUnwindSafe(|| inflate(&path, &part, &filled_tx, &empty_rx)));
            let failed = match inflated {
                Ok(Ok(())) => return,
                Ok(Err(e)) => e,
                Err(_) => io::Error::other("the part could not be inflated"),
            };
            let _ = filled_tx.send(Err(failed));
        })?;
        Ok(Inflated { filled, empty, current: Vec::new(), at: 0, done: false })
    }
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
            let next = self.filled.recv().unwrap_or_else(|_| Ok(Vec::new()))?;
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
