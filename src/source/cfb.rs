//! Just enough of the OLE compound file format (MS-CFB) to list the stream names, so an `.xls`
//! can be told apart from a password-protected `.xlsx` (an `EncryptedPackage` stream) or a Word
//! document before calamine gives a less helpful error.

use std::io::{Read, Seek, SeekFrom};

/// Sector numbers at or above this mark the end of a chain or a free/special sector.
const MAX_REGULAR_SECTOR: u32 = 0xFFFF_FFFA;
/// Guards against cyclic chains in damaged files.
const MAX_DIRECTORY_SECTORS: usize = 4096;
const ENTRY_SIZE: usize = 128;

/// The names of the entries in the directory, or `None` when the header is unreadable. A chain
/// that breaks midway returns the names read so far.
pub(super) fn stream_names<R: Read + Seek>(r: &mut R) -> Option<Vec<String>> {
    let mut header = [0u8; 512];
    r.read_exact(&mut header).ok()?;
    let shift = u16_at(&header, 0x1E);
    if shift != 9 && shift != 12 {
        return None;
    }
    let sector_size = 1usize << shift;
    let fat = read_fat(r, &header, sector_size)?;
    let mut names = Vec::new();
    let mut sector = u32_at(&header, 0x30);
    for _ in 0..MAX_DIRECTORY_SECTORS {
        if sector >= MAX_REGULAR_SECTOR {
            break;
        }
        let Some(buf) = read_sector(r, sector, sector_size) else {
            break;
        };
        names.extend(buf.chunks_exact(ENTRY_SIZE).filter_map(entry_name));
        match fat.get(sector as usize) {
            Some(&next) => sector = next,
            None => break,
        }
    }
    Some(names)
}

/// The file allocation table from the 109 sector numbers in the header; enough for files up to
/// ~7 MB with 512-byte sectors, and the directory of larger ones usually sits early anyway.
fn read_fat<R: Read + Seek>(r: &mut R, header: &[u8], sector_size: usize) -> Option<Vec<u32>> {
    let mut fat = Vec::new();
    for i in 0..109 {
        let sector = u32_at(header, 0x4C + 4 * i);
        if sector >= MAX_REGULAR_SECTOR {
            continue;
        }
        let buf = read_sector(r, sector, sector_size)?;
        fat.extend(buf.chunks_exact(4).map(|c| u32_at(c, 0)));
    }
    Some(fat)
}

fn read_sector<R: Read + Seek>(r: &mut R, sector: u32, sector_size: usize) -> Option<Vec<u8>> {
    let offset = (u64::from(sector) + 1).checked_mul(sector_size as u64)?;
    r.seek(SeekFrom::Start(offset)).ok()?;
    let mut buf = vec![0u8; sector_size];
    r.read_exact(&mut buf).ok()?;
    Some(buf)
}

/// The UTF-16LE name of a used directory entry.
fn entry_name(entry: &[u8]) -> Option<String> {
    let object_type = entry[0x42];
    if object_type == 0 {
        return None;
    }
    let len = (u16_at(entry, 0x40) as usize).min(64).saturating_sub(2);
    let units: Vec<u16> =
        entry[..len].chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    Some(String::from_utf16_lossy(&units))
}

fn u16_at(buf: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([buf[at], buf[at + 1]])
}

fn u32_at(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
}
