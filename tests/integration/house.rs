//! The house rule of `src/lib.rs`: a module uses only modules declared before it, so there is
//! no circle between modules and no import from a lower floor up. Read from the code's own
//! text: every `crate::name` in a module's files must name a module declared above it.

use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level modules in the order `lib.rs` declares them.
fn declared() -> Vec<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| l.strip_prefix("pub mod ")?.strip_suffix(';').map(String::from))
        .collect()
}

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            rust_files(&entry.unwrap().path(), out);
        }
    } else if path.is_file() && path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_path_buf());
    }
}

/// Every `crate::name` in `text` that names a module, with its line.
fn crate_paths<'a>(text: &'a str, modules: &'a [String]) -> impl Iterator<Item = (usize, &'a str)> {
    text.lines().enumerate().flat_map(move |(i, line)| {
        line.match_indices("crate::").filter_map(move |(at, _)| {
            let rest = &line[at + "crate::".len()..];
            let name: &str = &rest
                [..rest.find(|c: char| !c.is_alphanumeric() && c != '_').unwrap_or(rest.len())];
            modules.iter().any(|m| m == name).then_some((i + 1, name))
        })
    })
}

#[test]
fn a_module_uses_only_modules_declared_before_it() {
    let modules = declared();
    assert!(modules.len() > 10 && modules[0] == "source", "{modules:?}");
    let mut arrows_up = Vec::new();
    for (floor, module) in modules.iter().enumerate() {
        let mut files = Vec::new();
        rust_files(&src().join(module), &mut files);
        rust_files(&src().join(format!("{module}.rs")), &mut files);
        assert!(!files.is_empty(), "module {module} has no files");
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for (line, used) in crate_paths(&text, &modules) {
                let used_floor = modules.iter().position(|m| m == used).unwrap();
                if used_floor > floor {
                    arrows_up.push(format!("{}:{line}: {module} uses {used}", file.display()));
                }
            }
        }
    }
    assert!(arrows_up.is_empty(), "imports from a lower floor up:\n{}", arrows_up.join("\n"));
}

/// The check itself sees an arrow up.
#[test]
fn the_check_sees_an_arrow_up() {
    let modules = vec!["row".to_string(), "report".to_string()];
    let found: Vec<_> =
        crate_paths("use crate::report::Summary;\nuse crate::rowx;", &modules).collect();
    assert_eq!(found, [(1, "report")]);
}
