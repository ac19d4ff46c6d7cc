//! OpenBench's client, played: it builds a fresh clone with `make -j EXE=<path>` in the build path
//! (`src`, src/makefile), runs two `bench` at once, reads each output as ASCII from its last line
//! up with its patterns (`\d+ nodes`, `\d+ nps`), and wants them equal, and equal to the bench the
//! commit claims: here the README's signature; rmax's entry (src/openbench.json) names that build
//! path. About a minute: a release build from nothing.

mod common;
use common::Scratch;
use std::process::{Command, Stdio};

/// OpenBench's reading of a number beside `word` (`N word` or `word N`, its `nodes searched N`
/// too): the first match in a line, non-alphanumerics as spaces, the lines from the last.
fn openbench_number(output: &str, word: &str) -> Option<u64> {
    let clean = |l: &str| l.replace(|c: char| !c.is_ascii_alphanumeric() && c != ' ', " ");
    output.lines().rev().find_map(|line| {
        let line = clean(line).to_lowercase();
        let t: Vec<&str> = line.split_whitespace().collect();
        let number = |i: usize| t.get(i).and_then(|n| n.parse().ok());
        (0..t.len()).find_map(|i| match (t[i], t.get(i + 1)) {
            (_, Some(&w)) if w == word => number(i),
            ("nodes", Some(&"searched")) if word == "nodes" => number(i + 2),
            (w, _) if w == word => number(i + 1),
            _ => None,
        })
    })
}

#[test]
fn openbench_s_reader_finds_the_number_beside_its_word() {
    let bench = " 1/38 20 nodes e2e4 fen\n191589 nodes 901061 nps\n";
    assert_eq!(openbench_number(bench, "nodes"), Some(191589));
    assert_eq!(openbench_number(bench, "nps"), Some(901061));
    assert_eq!(openbench_number("Nodes searched: 42\n", "nodes"), Some(42));
    assert_eq!(openbench_number("no count\n", "nodes"), None);
}

#[test]
fn openbench_builds_a_fresh_clone_and_reads_the_readme_s_bench_twice_at_once() {
    let dir = Scratch::new("openbench");
    let (clone, exe) = (dir.join("rmax"), dir.join("rmax-x"));
    let cloned = Command::new("git")
        .args(["clone", "--quiet", env!("CARGO_MANIFEST_DIR")])
        .arg(&clone)
        .status()
        .expect("git runs");
    assert!(cloned.success(), "git clone");
    let built = Command::new("make")
        .args(["-j", &format!("EXE={}", exe.display())])
        .current_dir(clone.join("src"))
        .output()
        .expect("make runs");
    let log = String::from_utf8_lossy(&built.stderr);
    assert!(built.status.success(), "make: {log}");
    assert!(exe.is_file(), "no {} after make", exe.display());
    // two at once, as OpenBench's client runs them (stderr joined to stdout)
    let bench = || {
        let mut run = Command::new(&exe);
        run.arg("bench")
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        run.spawn().expect("the build runs")
    };
    let runs = [bench(), bench()].map(|r| r.wait_with_output().expect("its output"));
    let entry = std::fs::read_to_string(clone.join("src/openbench.json")).expect("the entry");
    for part in [
        "\"path\"      : \"src\"",
        "\"cargo>=1.82.0\"",
        "\"N=40000\"",
    ] {
        assert!(entry.contains(part), "{part} in src/openbench.json");
    }
    let readme = std::fs::read_to_string(clone.join("README.md")).expect("the clone's README");
    let claimed = readme
        .split("`rmax bench` ends with `")
        .nth(1)
        .expect("the signature");
    let claimed: u64 = claimed
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a count");
    for run in runs {
        assert!(
            run.status.success() && run.stdout.is_ascii(),
            "OpenBench reads ASCII"
        );
        let text = String::from_utf8_lossy(&run.stdout);
        let last = text.lines().last().unwrap_or_default().to_string();
        let (nodes, nps) = (
            openbench_number(&text, "nodes"),
            openbench_number(&last, "nps"),
        );
        assert_eq!(nodes, Some(claimed), "the README's signature: {last}");
        assert!(nps.is_some_and(|n| n > 0), "{last}");
        assert_eq!(
            openbench_number(&last, "nodes"),
            nodes,
            "read from the last line"
        );
    }
}
