//! rmax ab from the command line, with a stand-in fastchess (no games played): bad arguments
//! refused with exit code 2; a git ref taken at its commit (its build kept in target/ab/bin, its
//! src/lib.rs counted), a program as it is; the match's fastchess command at the ledger's
//! condition, its progress and result, the ledger's row; the same command resumes the match.

mod common;
use common::{assert_has, data_path, script, tool, Scratch};
use std::fs;
use std::path::Path;
use std::process::Command;

/// fastchess's report after `games` games, W 3 more than L.
fn report(games: u32) -> String {
    let (w, l) = ((games - 2) / 2 + 2, (games - 2) / 2 - 1);
    format!(
        "--------------------------------------------------\n\
         Results of new vs base (40000 nodes, 1t, 1MB, openings.epd):\n\
         Elo: 10.43 +/- 9.80, nElo: 15.92 +/- 14.36\n\
         LOS: 90.00 %, DrawRatio: 42.73 %, PairsRatio: 1.28\n\
         Games: {games}, Wins: {w}, Losses: {l}, Draws: 1, Points: 1.0 (52.93 %)\n\
         Ptnml(0-2): [0, 1, 2, 3, 0], WL/DD Ratio: 1.06\n\
         LLR: 0.50 (17.0%) (-2.94, 2.94) [0.00, 10.00]\n\
         --------------------------------------------------\n"
    )
}

/// A stand-in fastchess: it notes its arguments, reports 12 games (a resumed match 24), and
/// writes the state file it was told to (`-config outname=`).
#[cfg(unix)]
fn fastchess(dir: &Path) -> String {
    let (first, resumed) = (report(12), report(24));
    script(
        &dir.join("fastchess"),
        &format!(
            "echo \"$@\" >> calls.txt\necho 'Started game 1 of 2 (new vs base)'\n\
             for a in \"$@\"; do case $a in outname=*) echo '{{}}' > \"${{a#outname=}}\";; \
             file=*.json) printf '%s' '{resumed}'; exit;; esac; done\nprintf '%s' '{first}'\n"
        ),
    )
}

/// A git repository in `dir` with one commit of src/lib.rs (this crate's), its build already
/// kept where rmax ab keeps it: the commit's hash.
fn committed(dir: &Path) -> String {
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    fs::create_dir_all(dir.join("src")).expect("src");
    fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs"),
        dir.join("src/lib.rs"),
    )
    .expect("lib");
    git(&["init", "--quiet"]);
    git(&["add", "src/lib.rs"]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "--quiet",
        "-m",
        "base",
    ]);
    let commit = git(&["rev-parse", "HEAD"]);
    let kept = dir.join("target/ab/bin").join(&commit[..12]);
    fs::create_dir_all(kept.parent().expect("bin")).expect("target/ab/bin");
    fs::copy(env!("CARGO_BIN_EXE_rmax"), kept).expect("a kept build");
    commit
}

fn scratch(name: &str) -> Scratch {
    let dir = Scratch::new(&format!("ab cli-{name}"));
    fs::create_dir_all(dir.join("tests/data")).expect("tests/data");
    fs::copy(
        data_path("openings.epd"),
        dir.join("tests/data/openings.epd"),
    )
    .expect("openings");
    dir
}

#[test]
fn bad_arguments_are_refused_with_exit_code_2() {
    let dir = scratch("bad");
    for (args, message) in [
        ("", "give BASE, and NEW if not this working tree"),
        ("a b c", "give BASE"),
        (
            "HEAD --sprt 5,1",
            "--sprt takes two bounds E0,E1 (E0 < E1), or off",
        ),
        (
            "HEAD --tc 8+0.08 --nodes 10",
            "--tc and --nodes exclude each other",
        ),
        ("HEAD --tc soon", "--tc takes a time control such as 8+0.08"),
        (
            "HEAD --fastchess /nowhere --openings none.epd",
            "no openings at",
        ),
        ("HEAD --games 1", "--games takes 2 to"),
    ] {
        let args: Vec<&str> = args.split(' ').filter(|a| !a.is_empty()).collect();
        let (code, _, err) = tool("ab", dir.as_path(), &args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
    let (code, out, _) = tool("ab", dir.as_path(), &["--help"]);
    assert!(code == Some(0) && out.contains("--sprt E0,E1"), "{out}");
}

/// A ref against a program: the ledger's condition, the progress a line a report, the result,
/// the ledger's row; then the same command resumes the match from its state.
#[cfg(unix)]
#[test]
fn a_match_reports_the_ledger_s_row_and_the_same_command_resumes_it() {
    let dir = scratch("match");
    let (commit, fastchess) = (committed(&dir), fastchess(&dir));
    let program = dir.join("rmax-new");
    fs::copy(env!("CARGO_BIN_EXE_rmax"), &program).expect("a program");
    let program = program.to_string_lossy().into_owned();
    let args = ["HEAD", &program, "--fastchess", &fastchess];
    let (code, out, err) = tool("ab", dir.as_path(), &args);
    assert_eq!(code, Some(0), "{out}{err}");
    let base = &commit[..12];
    assert_has(&out, &format!("against base {base} (bench "));
    assert_has(&out, "characters), 40,000 nodes, Hash 1\n");
    assert_has(&out, "  12 games: W 7 D 1 L 4, Elo 10.43 +/- 9.80, pentanomial [0, 1, 2, 3, 0], LLR 0.50 (-2.94, 2.94)\n");
    assert_has(&out, ": undecided\n");
    let row = out.lines().last().expect("the row");
    let cells = " | CHANGE | ? | 10.43 +/- 9.80 (W7 D1 L4) | 12, 40,000 nodes, Hash 1 | VERDICT | COMMIT | SPRT [0, 10] undecided, LLR 0.50; pentanomial [0, 1, 2, 3, 0]; bench ";
    assert!(row.starts_with("| 20") && row.contains(cells), "{row}");
    let calls = fs::read_to_string(dir.join("calls.txt")).expect("calls");
    let state = dir.join("target/ab").join(format!("{base}-vs-rmax-new-"));
    let state = state.to_string_lossy();
    for part in [
        &format!("-engine cmd={}/target/ab/bin/rmax-new-", dir.display()),
        "name=new -engine cmd=",
        &format!(
            "/target/ab/bin/{base} name=base -each proto=uci tc=inf nodes=40000 option.Hash=1"
        ),
        "-report penta=true -ratinginterval 10 -srand ",
        "-sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 -pgnout file=",
        &format!("{state}"),
        "-n40000-h1.json",
    ] {
        assert!(calls.contains(part), "{part} in {calls}");
    }
    // the same command again: fastchess resumes from the state, the row counts every game
    let (code, out, err) = tool("ab", dir.as_path(), &args);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_has(&out, "rmax ab: resuming ");
    let last = fs::read_to_string(dir.join("calls.txt")).expect("calls");
    let last = last.lines().last().expect("a second call");
    assert!(
        last.starts_with("-config file=") && last.ends_with("-n40000-h1.json"),
        "{last}"
    );
    assert_has(&out, "| 24, 40,000 nodes, Hash 1 |");
}
