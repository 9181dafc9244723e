//! TEMP STUB
pub struct Record {
    pub row: u64,
    pub cells: csv::StringRecord,
    pub cell_errors: Vec<CellError>,
}
pub struct CellError {
    pub column: usize,
    pub value: String,
}
impl Record {
    pub fn is_blank(&self) -> bool {
        self.cells.iter().all(|c| c.trim().is_empty())
    }
}
#[derive(Debug, Clone, Default)]
pub struct SourceOptions {
    pub delimiter: Option<u8>,
    pub encoding: Option<String>,
    pub sheet: Option<SheetSelector>,
    pub header_row: Option<u64>,
}
#[derive(Debug, Clone)]
pub enum SheetSelector {
    Name(String),
    Index(usize),
}
impl std::str::FromStr for SheetSelector {
    type Err = SourceError;
    fn from_str(s: &str) -> Result<Self, SourceError> {
        Ok(SheetSelector::Name(s.into()))
    }
}
#[derive(Debug, thiserror::Error)]
#[error("source error: {0}")]
pub struct SourceError(String);
pub struct Source {
    pub headers: Vec<String>,
    pub sheet: Option<String>,
    rdr: csv::Reader<std::fs::File>,
    pub header_row: u64,
}
impl Source {
    pub fn open(path: &std::path::Path, _o: &SourceOptions) -> Result<Source, SourceError> {
        let mut rdr = csv::ReaderBuilder::new()
            .flexible(true)
            .from_path(path)
            .map_err(|e| SourceError(e.to_string()))?;
        let headers = rdr
            .headers()
            .map_err(|e| SourceError(e.to_string()))?
            .iter()
            .map(String::from)
            .collect();
        Ok(Source { headers, sheet: None, rdr, header_row: 1 })
    }
    pub fn records(self) -> impl Iterator<Item = Result<Record, SourceError>> + Send {
        self.rdr.into_records().enumerate().map(|(i, r)| {
            r.map(|cells| Record { row: i as u64 + 2, cells, cell_errors: vec![] })
                .map_err(|e| SourceError(e.to_string()))
        })
    }
}
pub async fn fetch(_url: &str, _dir: &std::path::Path) -> Result<std::path::PathBuf, SourceError> {
    Err(SourceError("stub".into()))
}
