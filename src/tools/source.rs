//! Rust source as the size budget reads it (tests/size.rs): its code without comments, the
//! characters it counts, and the search constants `c!(v)` that code holds (tests/tools.rs,
//! `rmax spsa`, `rmax ab`).

/// Rust source `src` without its comments (`//`, `///`, `//!`, nested `/* */`; a block comment
/// leaves a space): string, byte-string, raw-string and char literals are kept verbatim, so a
/// `//` or `/*` inside a literal is code, not a comment.
pub fn code(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut keep = String::new(); // the source with comments removed
    let mut i = 0;
    while i < c.len() {
        let at = |k: usize| c.get(k).copied().unwrap_or('\0');
        // where the literal starting at i ends (exclusive), if one starts here
        let mut lit_end = None;
        let prev_ident = i > 0 && ident(c[i - 1]);
        if at(i) == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1; // line comment, doc comments included
            }
            continue;
        } else if at(i) == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                if i >= c.len() {
                    break;
                } else if at(i) == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if at(i) == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            keep.push(' '); // a comment separates tokens
            continue;
        } else if !prev_ident && (at(i) == 'r' || at(i) == 'b' && at(i + 1) == 'r') {
            // raw string r"..", r#".."#, br".."; not a raw identifier such as r#type
            let mut j = i + if at(i) == 'b' { 2 } else { 1 };
            let hashes = (j..c.len()).take_while(|&k| c[k] == '#').count();
            j += hashes;
            if at(j) == '"' {
                j += 1;
                loop {
                    if j >= c.len() {
                        break;
                    }
                    if c[j] == '"' && (1..=hashes).all(|h| at(j + h) == '#') {
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                lit_end = Some(j);
            }
        } else if at(i) == '"' {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            lit_end = Some(j + 1);
        } else if at(i) == '\'' {
            // a char literal ('x', '\n', '\'', '\u{1F600}'), else a lifetime or label ('a)
            if at(i + 1) == '\\' {
                let mut j = i + 3;
                while j < c.len() && c[j] != '\'' {
                    j += 1;
                }
                lit_end = Some(j + 1);
            } else if at(i + 2) == '\'' {
                lit_end = Some(i + 3);
            }
        }
        let end = lit_end.unwrap_or(i + 1).min(c.len());
        keep.extend(&c[i..end]);
        i = end;
    }
    keep
}

/// Non-whitespace characters of Rust source `src` outside comments: src/lib.rs's size.
pub fn code_chars(src: &str) -> usize {
    code(src).chars().filter(|ch| !ch.is_whitespace()).count()
}

/// The values `v` of the `c!(v)` in the code of `src` (not in its comments), in order.
pub fn marked(src: &str) -> Vec<i32> {
    let code = code(src);
    let values = code.split("c!(").skip(1);
    values
        .filter_map(|rest| rest.split(')').next()?.trim().parse().ok())
        .collect()
}
