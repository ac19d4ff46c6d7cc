//! rmax calibrate from the command line: a row is one fastchess command (against Stockfish, or
//! a chain of rmax's levels below its floor), and bad arguments are refused with exit code 2.
//! No games are played.

mod common;

/// Runs rmax calibrate with stand-in paths: (exit code, standard output, standard error).
fn calibrate(args: &str) -> (Option<i32>, String, String) {
    let paths = "--fastchess /x/fastchess --stockfish /x/sf --rmax /x/rmax";
    let args = format!("{paths} {args}");
    let args: Vec<&str> = args.split_whitespace().collect();
    common::tool("calibrate", ".", &args)
}

/// The fastchess command of a dry run.
fn command(args: &str) -> String {
    let (code, out, err) = calibrate(&format!("{args} --dry-run"));
    assert_eq!(code, Some(0), "{args}: {err}");
    out.lines().nth(1).expect("the command").to_string()
}

#[test]
fn a_row_is_one_fastchess_command() {
    let (code, out, _) = calibrate("--elo 1400 --srand 7 --dry-run");
    assert_eq!(code, Some(0));
    assert!(
        out.starts_with(
            "rmax calibrate: rmax1400 against Stockfish at UCI_Elo 1400, 10+0.1, 80 games"
        ),
        "{out}"
    );
    assert_eq!(
        command("--elo 1400 --srand 7"),
        "/x/fastchess -engine cmd=/x/rmax name=rmax1400 option.UCI_LimitStrength=true \
         option.UCI_Elo=1400 -engine cmd=/x/sf name=sf1400 option.UCI_LimitStrength=true \
         option.UCI_Elo=1400 -each tc=10+0.1 option.Hash=16 option.Threads=1 -rounds 40 \
         -repeat -concurrency 2 -openings file=tests/data/openings.epd format=epd \
         order=random -srand 7 -pgnout file=calibrate-rmax1400-sf1400-10+0.1.pgn"
    );
    let line =
        command("--elo 1800 --tc 3+0.03 --games 40 --pgn my.pgn --concurrency 1 --openings o.epd");
    for part in [
        "tc=3+0.03 ",
        "-rounds 20 ",
        "-concurrency 1 ",
        "file=my.pgn",
        "UCI_Elo=1800",
        "file=o.epd ",
    ] {
        assert!(line.contains(part), "{part}: {line}");
    }
    // full strength: no level options for rmax
    let full = "-engine cmd=/x/rmax name=rmax-full -engine cmd=/x/sf name=sf2200 \
                option.UCI_LimitStrength=true option.UCI_Elo=2200 -each";
    assert!(command("--elo full --sf-elo 2200").contains(full));
    // below Stockfish's floor, the chain: level against level
    let chain = "-engine cmd=/x/rmax name=rmax1000 option.UCI_LimitStrength=true option.UCI_Elo=1000 \
                 -engine cmd=/x/rmax name=rmax1400 option.UCI_LimitStrength=true option.UCI_Elo=1400 -each";
    assert!(command("--elo 1000 --vs-level 1400").contains(chain));
}

#[test]
fn bad_arguments_are_refused_saying_which() {
    for (args, message) in [
        ("", "--elo is required"),
        ("--elo", "--elo needs a value"),
        ("--elo strong", "--elo takes 0 to 4000, not 'strong'"),
        (
            "--elo 1000",
            "not 1000: below its floor, anchor the row by a chain (--vs-level 1400)",
        ),
        ("--elo 1400 --games 7", "--games takes an even number"),
        ("--elo 1400 --games 0", "--games takes 2 to 100000, not '0'"),
        (
            "--elo 1400 --tc fast",
            "--tc takes a time control such as 10+0.1, not 'fast'",
        ),
        (
            "--elo 1400 --sf-elo 1400 --vs-level 1000",
            "--vs-level and --sf-elo exclude each other",
        ),
        (
            "--elo 1400 --vs-level 1400",
            "rmax would play itself at the same level",
        ),
        ("--elo full", "--elo full needs --sf-elo"),
        ("--elo 1400 --frobnicate", "unknown option '--frobnicate'"),
        ("--elo 1400 --elo 1800", "--elo given twice"),
        ("--elo 1400 extra", "unknown argument 'extra'"),
    ] {
        let (code, out, err) = calibrate(args);
        assert_eq!(code, Some(2), "{args}: {out}{err}");
        assert!(
            err.contains(message) && err.contains("usage: rmax calibrate"),
            "{args}: {err}"
        );
    }
}
