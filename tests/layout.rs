//! The file tree shows the architecture: around `src/lib.rs` (the engine, held to its own
//! character budget by `size.rs`), each file does one job, `src/main.rs` only chooses the
//! mode and reads the command line, and no function is too long to read in one sitting.

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = vec![];
    for entry in fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The functions of `src` longer than `max` lines, as "name (lines)": a function starts at
/// a line `fn name` and ends at the first line that closes a brace at its own indentation.
fn long_functions(src: &str, max: usize) -> Vec<String> {
    let lines: Vec<&str> = src.lines().collect();
    let mut long = vec![];
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let head = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "const fn ",
            "pub const fn ",
        ]
        .iter()
        .find_map(|p| code.strip_prefix(p));
        let Some(head) = head else { continue };
        if line.trim_end().ends_with(';') {
            continue; // a declaration without a body
        }
        let name: String = head
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{indent}}}");
        let end = (i + 1..lines.len()).find(|&j| lines[j].trim_end() == close);
        let n = end.map_or(lines.len() - i, |j| j - i + 1);
        if n > max {
            long.push(format!("{name} ({n} lines)"));
        }
    }
    long
}

#[test]
fn main_rs_stays_a_mode_switch() {
    let main = fs::read_to_string("src/main.rs").expect("src/main.rs");
    let n = main.lines().count();
    assert!(n <= 250, "src/main.rs has {n} lines, at most 250");
}

#[test]
fn no_function_outside_the_engine_is_over_100_lines() {
    let mut found = vec![];
    for path in rust_files(Path::new("src")) {
        if path.ends_with("src/lib.rs") {
            continue; // the engine's one search function is its own kind of read
        }
        let src = fs::read_to_string(&path).expect("a source file");
        for f in long_functions(&src, 100) {
            found.push(format!("{}: {f}", path.display()));
        }
    }
    assert!(found.is_empty(), "over 100 lines: {found:?}");
}

#[test]
fn the_length_check_sees_a_long_function() {
    let body = "    let x = 1;\n".repeat(101);
    let src = format!("fn short() {{\n}}\n\n    pub fn long() {{\n{body}    }}\n");
    assert_eq!(long_functions(&src, 100), ["long (103 lines)"]);
    assert!(long_functions(&src, 103).is_empty());
}
