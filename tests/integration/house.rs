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

/// Every module `text` names from the crate's root, with its line: `crate::name`, each name of
/// a group `crate::{a, b::c}` (over several lines too), and a `super::` chain long enough to
/// climb out of the file's own module to the root (`depth` is how deep the file's module is:
/// 1 for `src/report.rs` or `src/report/mod.rs`, 2 for `src/report/html.rs`).
fn crate_paths(text: &str, modules: &[String], depth: usize) -> Vec<(usize, String)> {
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let mut found = Vec::new();
    let mut named = |at: usize, rest: &str| {
        for name in names_at(rest) {
            if modules.contains(&name) {
                found.push((line_of(at), name));
            }
        }
    };
    for (at, _) in text.match_indices("crate::") {
        // `$crate::` in a macro, or a longer word ending in `crate`, is not the root.
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        named(at, &text[at + "crate::".len()..]);
    }
    for (at, _) in text.match_indices("super::") {
        if text[..at].ends_with("super::") {
            continue;
        }
        let mut rest = &text[at..];
        let mut climbs = 0;
        while let Some(next) = rest.strip_prefix("super::") {
            climbs += 1;
            rest = next;
        }
        if climbs >= depth {
            named(at, rest);
        }
    }
    found
}

/// The first name of a path, or each first name of a `{…}` group.
fn names_at(rest: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        let s = s.trim_start();
        s[..s.find(|c: char| !c.is_alphanumeric() && c != '_').unwrap_or(s.len())].to_string()
    };
    let Some(group) = rest.strip_prefix('{') else { return vec![ident(rest)] };
    let mut names = Vec::new();
    let (mut level, mut item_start) = (0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => level += 1,
            '}' if level == 0 => {
                names.push(ident(&group[item_start..i]));
                break;
            }
            '}' => level -= 1,
            ',' if level == 0 => {
                names.push(ident(&group[item_start..i]));
                item_start = i + 1;
            }
            _ => {}
        }
    }
    names
}

/// How deep a file's module lies below the root: `src/x.rs` and `src/x/mod.rs` are 1.
fn depth(file: &Path) -> usize {
    let below = file.strip_prefix(src()).unwrap();
    let parts = below.components().count();
    if below.file_name().is_some_and(|n| n == "mod.rs") { parts - 1 } else { parts }
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
            for (line, used) in crate_paths(&text, &modules, depth(&file)) {
                let used_floor = modules.iter().position(|m| *m == used).unwrap();
                if used_floor > floor {
                    arrows_up.push(format!("{}:{line}: {module} uses {used}", file.display()));
                }
            }
        }
    }
    assert!(arrows_up.is_empty(), "imports from a lower floor up:\n{}", arrows_up.join("\n"));
}

/// The check itself sees an arrow up, written in each of the ways Rust allows.
#[test]
fn the_check_sees_an_arrow_up() {
    let modules = vec!["row".to_string(), "report".to_string()];
    let sees = |text: &str, depth: usize| -> Vec<String> {
        crate_paths(text, &modules, depth).into_iter().map(|(_, m)| m).collect()
    };
    assert_eq!(sees("use crate::report::Summary;\nuse crate::rowx;", 1), ["report"]);
    assert_eq!(sees("use crate::{\n    rowx::A,\n    report::{B, C},\n};", 1), ["report"]);
    assert_eq!(sees("use super::super::report::B;", 2), ["report"]);
    assert!(sees("use super::report::B;", 2).is_empty(), "a sibling inside the module");
    assert!(sees("macro_rules! m { () => { $crate::report::B } }", 1).is_empty());
    assert_eq!(crate_paths("x\nuse crate::report;", &modules, 1), [(2, "report".to_string())]);
}
