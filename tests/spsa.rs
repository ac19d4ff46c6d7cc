//! rmax spsa from the command line: a bad name or range is refused with exit code 2 and the
//! state untouched; a dry run prints the next fastchess command; a missing or wrong engine, a
//! failing fastchess or a result not of the values planned stops the run with exit code 1 and
//! the state as it was; and a whole run (a stand-in fastchess that reports a result without
//! playing, a stand-in tune build) saves, logs, resumes, reports and applies its values to a
//! copy of the sources; `--set` and `--from` (OpenBench's values) apply without a run, and
//! `--openbench` prints OpenBench's SPSA input. A tune build of other sources (its defaults or
//! its bench not this rmax's) is refused, saying what to rebuild. No real games are played.

mod common;
#[allow(dead_code)] // (a tune build's setter)
#[path = "../src/params.rs"]
mod params;
use common::{assert_has, data_path, script, tool, Scratch};
use params::{param, PARAMS};
use std::fs;
use std::path::Path;

/// Runs the runner in `dir`: (exit code, standard output, standard error).
fn spsa(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    tool("spsa", dir, args)
}

/// A fresh folder for one test (a space in its path), with src/ and openings.epd.
fn scratch(name: &str) -> Scratch {
    let dir = Scratch::new(&format!("spsa cli-{name}"));
    fs::create_dir_all(dir.join("src")).expect("a directory");
    fs::copy(data_path("openings.epd"), dir.join("openings.epd")).expect("openings");
    dir
}

/// A refused or failed run leaves no state file behind.
fn no_state_written(dir: &Path) {
    let state = dir.join("spsa-state.txt");
    assert!(!state.exists(), "{} was written", state.display());
}

/// A constant's value in src/params.rs (read, not repeated: `--apply` changes it).
fn default(name: &str) -> i32 {
    param(name).expect("a constant").default
}

/// A value for `name` above its own, in its range, that no constant has.
fn free(name: &str) -> i32 {
    let (p, taken) = (param(name).expect("a constant"), |v: &i32| {
        PARAMS.iter().any(|p| p.default == *v)
    });
    (p.default + 1..=p.max)
        .find(|v| !taken(v))
        .expect("a free value")
}

/// A stand-in tune build: it answers `uci` with the options of RfpMargin (at `rfp`) and
/// AspWindow, and `bench` as `bench` does (this rmax's bench, or `bench`).
#[cfg(unix)]
fn stand_in(dir: &Path, name: &str, rfp: i32, bench: Option<&str>) -> String {
    let rmax = env!("CARGO_BIN_EXE_rmax");
    let bench = bench.map_or(format!("exec '{rmax}' bench"), |b| {
        format!("echo '{b}'; exit")
    });
    let asp = default("AspWindow");
    script(
        &dir.join(name),
        &format!(
            "[ \"$1\" = bench ] && {{ {bench}; }}\n\
             echo 'id name rmax'\n\
             echo 'option name RfpMargin type spin default {rfp} min 20 max 200'\n\
             echo 'option name AspWindow type spin default {asp} min 8 max 80'\n\
             echo uciok\n"
        ),
    )
}

/// A stand-in tune build of these sources.
#[cfg(unix)]
fn tune_build(dir: &Path) -> String {
    stand_in(dir, "engine", default("RfpMargin"), None)
}

/// Copies of src/lib.rs and src/params.rs in `dir`.
fn sources(dir: &Path) {
    for file in ["src/lib.rs", "src/params.rs"] {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        fs::copy(from, dir.join(file)).expect("a copy");
    }
}

/// A stand-in fastchess that notes its arguments and reports plus winning every game of a
/// pair (`-rounds 1`).
#[cfg(unix)]
fn winning_fastchess(dir: &Path) -> String {
    script(
        &dir.join("fastchess"),
        "echo \"$@\" >> calls.txt\n\
         echo 'Results of plus vs minus (2000 nodes, 1t, 1MB, openings.epd):'\n\
         echo 'Games: 2, Wins: 2, Losses: 0, Draws: 0, Points: 2.0 (100.00 %)'\n",
    )
}

#[test]
fn bad_names_and_ranges_are_refused_with_exit_code_2() {
    let dir = scratch("bad");
    for (args, message) in [
        (
            "--params RfpMargin,Bogus",
            "unknown parameter 'Bogus' in --params",
        ),
        ("--params RfpMargin,rfpmargin", "RfpMargin named twice"),
        ("--set AspWindow=500", "AspWindow takes 8 to 80, not '500'"),
        ("--set RfpMargin=x", "RfpMargin takes 20 to 200, not 'x'"),
        ("--set Nope=5", "unknown parameter 'Nope' in --set"),
        (
            "--params RfpDepth --set RfpMargin=80",
            "--set RfpMargin: it is not tuned",
        ),
        ("--set RfpMargin", "--set takes Name=value"),
        ("--pairs x", "--pairs takes 1 to 10000, not 'x'"),
        (
            "--tc 2+0.02 --nodes 100",
            "--tc and --nodes exclude each other",
        ),
        (
            "--tc fast",
            "--tc takes a time control such as 2+0.02, not 'fast'",
        ),
        ("--r-end 0", "--r-end takes"),
        ("--seed 1 --seed 2", "--seed given twice"),
        ("--iterations", "--iterations needs a value"),
        ("--frobnicate", "unknown option '--frobnicate'"),
        (
            "--build --engine x",
            "--build builds target/tune/release/rmax: it takes no --engine",
        ),
        ("--report", "no state file at spsa-state.txt"),
    ] {
        let (code, _, err) = spsa(&dir, &args.split(' ').collect::<Vec<_>>());
        assert_eq!(code, Some(2), "{args}: {err}");
        assert!(err.contains(message), "{args}: {err}");
    }
    no_state_written(&dir);
    // a state file that is not one rmax spsa wrote is refused, and left as it was
    let state = "--params RfpMargin --iterations 10 --pairs 1\ndone 2\n";
    fs::write(dir.join("spsa-state.txt"), state).expect("a state");
    for args in [&["--report"][..], &["--dry-run"][..]] {
        let (code, _, err) = spsa(&dir, args);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains("the state file spsa-state.txt is not one rmax spsa wrote"),
            "{err}"
        );
    }
    assert_eq!(
        fs::read_to_string(dir.join("spsa-state.txt")).expect("kept"),
        state
    );
    let (code, out, _) = spsa(&dir, &["--help"]);
    assert_eq!(code, Some(0));
    assert_has(&out, "--iterations N");
    assert_has(&out, "--apply");
}

/// A dry run prints the next iteration's fastchess command (the defaults, or the settings
/// given), and writes nothing.
#[test]
fn a_dry_run_prints_the_next_command_and_writes_nothing() {
    let dir = scratch("dry");
    let dry = |args: &str| {
        let (code, out, err) = spsa(&dir, &args.split(' ').collect::<Vec<_>>());
        assert_eq!(code, Some(0), "{err}");
        out
    };
    let out = dry("--dry-run --fastchess fc");
    let first = "rmax spsa: RfpMargin,RfpDepth,";
    let defaults = "(15 constants), 2000 iterations of 4 game pairs at tc=2+0.02, hash 8 MB; state in spsa-state.txt\n";
    assert!(out.starts_with(first) && out.contains(defaults), "{out}");
    assert!(
        out.contains(
            "-each tc=2+0.02 option.Hash=8 proto=uci -rounds 4 -repeat -concurrency 2 -openings \
        file=tests/data/openings.epd format=epd order=random -srand "
        ),
        "{out}"
    );
    let out = dry("--dry-run --params RfpMargin,rfpdepth --nodes 2000 --pairs 3 --fastchess fc --seed 1 --state a.txt --engine /x/rmax");
    let words: Vec<&str> = out.lines().nth(1).expect("a command").split(' ').collect();
    let values: Vec<i32> = words
        .iter()
        .filter_map(|w| w.split_once('=')?.1.parse().ok())
        .take(4)
        .collect();
    let expected = format!(
        "fc -engine cmd=/x/rmax name=plus option.RfpMargin={} option.RfpDepth={} -engine cmd=/x/rmax name=minus \
         option.RfpMargin={} option.RfpDepth={} -each tc=inf nodes=2000 option.Hash=1 proto=uci -rounds 3 -repeat \
         -concurrency 2 -openings file=tests/data/openings.epd format=epd order=random -srand {} -config \
         outname=a.txt.fastchess.json",
        values[0], values[1], values[2], values[3], words[words.len() - 3]
    );
    assert_eq!(words.join(" "), expected);
    let out = dry("--dry-run --params RfpMargin --openings my_book.pgn --tc 10+0.1 --fastchess fc");
    assert_has(&out, "tc=10+0.1 option.Hash=8");
    assert_has(&out, "format=pgn");
    no_state_written(&dir);
}

#[cfg(unix)]
#[test]
fn a_missing_or_wrong_engine_or_a_failing_fastchess_stops_with_exit_code_1() {
    let dir = scratch("fail");
    let fastchess = winning_fastchess(&dir);
    let base: Vec<&str> = "--params RfpMargin --nodes 2000 --openings openings.epd"
        .split(' ')
        .collect();
    let run = |more: &[&str]| spsa(&dir, &[&base[..], more].concat());
    // no tune build: the message gives the command that builds it
    let (code, _, err) = run(&["--fastchess", &fastchess]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("no engine at target/tune/release/rmax")
            && err.contains("cargo build --release --features tune --target-dir target/tune"),
        "{err}"
    );
    // a normal build offers no constants
    let normal = script(&dir.join("normal"), "echo 'id name rmax'\necho uciok\n");
    let (code, _, err) = run(&["--fastchess", &fastchess, "--engine", &normal]);
    assert_eq!(code, Some(1), "{err}");
    assert_has(&err, "offers no option RfpMargin: is it the tune build?");
    // no fastchess
    let engine = tune_build(&dir);
    let (code, _, err) = run(&["--fastchess", "/nowhere/fastchess", "--engine", &engine]);
    assert_eq!(code, Some(1), "{err}");
    assert_has(&err, "fastchess not found at /nowhere/fastchess");
    // fastchess fails without a result: its last lines are shown, no state is written
    let failing = script(
        &dir.join("failing"),
        "echo 'Engine binary does not exist: x'\nexit 1\n",
    );
    let (code, _, err) = run(&["--fastchess", &failing, "--engine", &engine]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("iteration 1: fastchess printed no result")
            && err.contains("Engine binary does not exist: x"),
        "{err}"
    );
    no_state_written(&dir);
}

/// The engine must offer each constant's whole range; fastchess's result must count all the
/// games planned, readably, with no warning about an option (a value the engine did not take).
#[cfg(unix)]
#[test]
fn a_result_not_of_the_values_planned_stops_the_run() {
    let dir = scratch("result");
    let engine = tune_build(&dir);
    let rfp = default("RfpMargin");
    let narrow = format!(
        "echo 'option name RfpMargin type spin default {rfp} min 30 max 200'\necho uciok\n"
    );
    let narrow = script(&dir.join("narrow"), &narrow);
    let games = "echo 'Games: 2, Wins: 2, Losses: 0, Draws: 0, Points: 2.0 (100.00 %)'\n";
    let warning = format!("echo \"Warning; plus doesn't have option RfpMargin\"\n{games}");
    let warned = script(&dir.join("warned"), &warning);
    let short = games.replace("Games: 2", "Games: 1");
    let short = script(&dir.join("short"), &short);
    let garbled = script(&dir.join("garbled"), "echo 'Games: 2, Wins: two'\n");
    for (engine, fastchess, message) in [
        (
            &narrow,
            &warned,
            "takes RfpMargin from 30 to 200, the run moves it from 20 to 200",
        ),
        (
            &engine,
            &warned,
            "doesn't have option RfpMargin': the engine did not take a value",
        ),
        (
            &engine,
            &short,
            "fastchess counted 1 games, not the 2 planned",
        ),
        (
            &engine,
            &garbled,
            "cannot read fastchess's 'Games: 2, Wins: two'",
        ),
    ] {
        let args = "--params RfpMargin --nodes 2000 --pairs 1 --openings openings.epd";
        let mut args: Vec<&str> = args.split(' ').collect();
        args.extend(["--engine", engine, "--fastchess", fastchess]);
        let (code, _, err) = spsa(&dir, &args);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains(message), "{message}: {err}");
    }
    no_state_written(&dir);
}

#[cfg(unix)]
#[test]
fn a_run_saves_after_every_iteration_resumes_reports_and_applies() {
    let dir = scratch("run");
    let (engine, fastchess) = (tune_build(&dir), winning_fastchess(&dir));
    let args = [
        "--params",
        "RfpMargin,AspWindow",
        "--set",
        "AspWindow=60",
        "--iterations",
        "5",
        "--pairs",
        "1",
        "--nodes",
        "2000",
        "--openings",
        "openings.epd",
        "--seed",
        "7",
        "--engine",
        &engine,
        "--fastchess",
        &fastchess,
        "--state",
        "run.txt",
    ];
    // a fastchess that fails at the 4th call stops the run after 3 iterations
    let flaky = script(
        &dir.join("flaky"),
        &format!(
            "[ $(cat calls.txt 2>/dev/null | wc -l) -ge 3 ] && exit 1\n{}",
            fs::read_to_string(&fastchess)
                .expect("the script")
                .replace("#!/bin/sh\n", "")
        ),
    );
    let mut first: Vec<&str> = args.to_vec();
    let at = first.len() - 3;
    first[at] = &flaky;
    let (code, out, err) = spsa(&dir, &first);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("3/5  W 2 D 0 L 0  RfpMargin "), "{out}");
    let saved = fs::read_to_string(dir.join("run.txt")).expect("a state");
    assert_has(&saved, "\ndone 3 rng ");
    assert_has(&saved, " games 6 0 0\n");
    // resumed with the same settings (given again, or left out): iterations 4 and 5
    let resume = ["--engine", &engine, "--fastchess", &fastchess];
    let (code, out, err) = spsa(
        &dir,
        &[
            &resume[..],
            &[
                "--state",
                "run.txt",
                "--pairs",
                "1",
                "--params",
                "rfpmargin,AspWindow",
            ],
        ]
        .concat(),
    );
    assert_eq!(code, Some(0), "{out}{err}");
    assert_has(&out, "(resuming after iteration 3)");
    assert_has(&out, "5/5  W 2");
    assert!(!out.contains("\n3/5"), "{out}");
    let calls = fs::read_to_string(dir.join("calls.txt")).expect("the calls");
    assert_eq!(
        calls.lines().count(),
        5,
        "3 calls, a failed one (unnoted), 2: {calls}"
    );
    assert!(calls.contains("name=plus option.RfpMargin=") && calls.contains("option.AspWindow="));
    let log = fs::read_to_string(dir.join("run.txt.log")).expect("a log");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(
        lines[0],
        "# iteration wins draws losses RfpMargin AspWindow"
    );
    assert_eq!(lines.len(), 6, "{log}");
    assert!(lines[5].starts_with("5 2 0 0 "), "{log}");
    assert!(!dir.join("run.txt.tmp").exists());
    // other settings are refused, the state untouched
    let state = fs::read_to_string(dir.join("run.txt")).expect("a state");
    let (code, _, err) = spsa(
        &dir,
        &["--state", "run.txt", "--pairs", "4", "--engine", &engine],
    );
    assert_eq!(code, Some(2), "{err}");
    let ours = "run.txt holds a run of\n  --params RfpMargin,AspWindow --iterations 5 --pairs 1 ";
    assert!(
        err.contains(ours)
            && err.contains("not of\n  --params RfpMargin,AspWindow --iterations 5 --pairs 4 "),
        "{err}"
    );
    let (code, _, err) = spsa(&dir, &["--state", "run.txt", "--set", "RfpMargin=80"]);
    assert!(
        code == Some(2)
            && err.contains("--set starts a run, and run.txt holds one (5 iterations done)"),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(dir.join("run.txt")).expect("kept"),
        state
    );
    // a complete run reports, and --apply writes the values into copies of the sources
    let (code, out, _) = spsa(&dir, &["--state", "run.txt"]);
    assert_eq!(code, Some(0));
    assert_has(&out, "is complete");
    assert_has(&out, "AspWindow: 60 -> ");
    sources(&dir);
    let (code, out, err) = spsa(&dir, &["--state", "run.txt", "--report", "--apply"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let line = out
        .lines()
        .find(|l| l.contains("AspWindow:"))
        .expect("AspWindow's line");
    let new: i32 = line
        .rsplit("c!(")
        .next()
        .and_then(|v| v.trim_end_matches(')').parse().ok())
        .expect("a new value");
    let asp = default("AspWindow");
    assert_ne!(new, asp, "{line}");
    let tuning = fs::read_to_string(dir.join("src/params.rs")).expect("params.rs");
    assert!(
        tuning.contains(&format!("p(\"AspWindow\", {new}, 8, 80")),
        "{line}"
    );
    let lib = fs::read_to_string(dir.join("src/lib.rs")).expect("lib.rs");
    assert!(
        lib.contains(&format!("c!({new})")) && !lib.contains(&format!("c!({asp})")),
        "{line}"
    );
}

/// A tune build of other sources stops the run before a game, with exit code 1 and what to
/// rebuild: its default not this rmax's, its bench not this rmax's, or this rmax not built from
/// the src/lib.rs here.
#[cfg(unix)]
#[test]
fn a_tune_build_of_other_sources_is_refused_with_what_to_rebuild() {
    let dir = scratch("stale");
    let fastchess = winning_fastchess(&dir);
    let run = |engine: &str| {
        let args = "--params AspWindow --nodes 2000 --pairs 1 --openings openings.epd";
        let mut args: Vec<&str> = args.split(' ').collect();
        args.extend(["--engine", engine, "--fastchess", &fastchess]);
        spsa(&dir, &args)
    };
    let rebuild = "cargo build --release --features tune --target-dir target/tune";
    let rfp = default("RfpMargin");
    let (code, _, err) = run(&stand_in(&dir, "old", rfp - 1, None));
    assert_eq!(code, Some(1), "{err}");
    let stale = format!("starts RfpMargin at {}, this rmax at {rfp}", rfp - 1);
    assert!(err.contains(&stale) && err.contains(rebuild), "{err}");
    let (code, _, err) = run(&stand_in(&dir, "other", rfp, Some("5 nodes 9 nps")));
    assert_eq!(code, Some(1), "{err}");
    let why = "searches otherwise than this rmax (bench: 5 nodes, this rmax's ";
    assert!(
        err.contains(why) && err.contains("rebuild both") && err.contains(rebuild),
        "{err}"
    );
    sources(&dir);
    let lib = dir.join("src/lib.rs");
    let (asp, other) = (default("AspWindow"), free("AspWindow"));
    let text = fs::read_to_string(&lib).expect("lib.rs");
    let text = text.replace(&format!("c!({asp})"), &format!("c!({other})"));
    fs::write(&lib, text).expect("a changed copy");
    let (code, _, err) = run(&tune_build(&dir));
    assert_eq!(code, Some(1), "{err}");
    assert_has(
        &err,
        "this rmax was built from other sources than src/ here",
    );
    assert!(!dir.join("calls.txt").exists(), "no game was played");
    no_state_written(&dir);
}

/// `--set` with `--apply` writes one constant into every place at once, no run needed; OpenBench's
/// final values (`--from`) likewise; `--openbench` prints its input, a line a constant.
#[test]
fn set_and_openbench_s_values_apply_without_a_run() {
    let dir = scratch("set");
    sources(&dir);
    let read = |file: &str| fs::read_to_string(dir.join(file)).expect("a source");
    let (lib, params) = (read("src/lib.rs"), read("src/params.rs"));
    let (rfp, asp, new_rfp, new_asp) = (
        default("RfpMargin"),
        default("AspWindow"),
        free("RfpMargin"),
        free("AspWindow"),
    );
    let c = |v: i32| format!("c!({v})");
    let set = format!("RfpMargin={new_rfp}");
    let (code, out, err) = spsa(&dir, &["--set", &set, "--apply"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_has(&out, &format!("RfpMargin: {} -> {}", c(rfp), c(new_rfp)));
    assert_eq!(read("src/lib.rs"), lib.replace(&c(rfp), &c(new_rfp)));
    let entry = |v: i32| format!("p(\"RfpMargin\", {v},");
    assert_eq!(
        read("src/params.rs"),
        params.replace(&entry(rfp), &entry(new_rfp))
    );
    // this rmax holds the old value still: it is refused until rebuilt from the changed sources
    let values = format!("RfpMargin, {}.6\nAspWindow, {new_asp}\n", rfp - 1);
    fs::write(dir.join("ob.txt"), values).expect("values");
    let (code, _, err) = spsa(&dir, &["--from", "ob.txt", "--report"]);
    assert!(
        code == Some(1) && err.contains("rebuild it (cargo build --release"),
        "{err}"
    );
    sources(&dir);
    let (code, out, err) = spsa(&dir, &["--from", "ob.txt", "--report"]);
    assert_eq!(code, Some(0), "{err}");
    let changes = [
        format!("RfpMargin: {} unchanged", c(rfp)),
        format!("AspWindow: {} -> {}", c(asp), c(new_asp)),
    ];
    assert!(changes.iter().all(|change| out.contains(change)), "{out}");
    assert_eq!(read("src/lib.rs"), lib, "--report writes nothing");
    let (code, _, err) = spsa(&dir, &["--from", "ob.txt", "--apply"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(read("src/lib.rs"), lib.replace(&c(asp), &c(new_asp)));
    let (code, _, err) = spsa(&dir, &["--set", &set, "--from", "ob.txt", "--apply"]);
    assert!(
        code == Some(2) && err.contains("exclude each other"),
        "{err}"
    );
    no_state_written(&dir);
    let (code, out, _) = spsa(&dir, &["--openbench"]);
    assert_eq!(code, Some(0));
    assert_eq!(out.lines().count(), 15, "{out}");
    let first = format!("RfpMargin, int, {rfp}, 20, 200, 8, 0.002\n");
    assert!(out.starts_with(&first), "{out}");
}
