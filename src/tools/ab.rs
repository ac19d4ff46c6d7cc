//! `rmax ab`: one build against another in fastchess games at the ledger's condition (README,
//! rmax ab): each a git ref built in a scratch worktree, or a program; an SPRT on pentanomial
//! counts, resumed by the same command; at the end what the ledger's row needs.

use super::command::{bench_signature, each_line, fastchess_games, on_path, valid_tc};
use super::command::{with_suffix, Args};
use super::source::code_chars;
use crate::game::today;
use crate::random::fresh;
use std::fs;
use std::hash::{DefaultHasher, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const USAGE: &str = "usage: rmax ab BASE [NEW] [options] (-h: this text; README: rmax ab).
NEW against BASE in fastchess games, run in the crate's root. BASE and NEW: a git ref (built in
a scratch worktree) or an rmax program; NEW by default this working tree (cargo build --release).
The same command resumes the match: its state, log and games are target/ab/BASE-vs-NEW-LIMIT.*
  --nodes N | --tc T  nodes a move (default 40000), or a clock such as 8+0.08
  --hash MB           each engine's hash (default 1)
  --games N           at most this many (default 20000); the SPRT ends the match first
  --sprt E0,E1        the SPRT's bounds, normalized Elo (default 0,10); --sprt off: no SPRT
  --openings FILE     EPD or .pgn (default tests/data/openings.epd)
  --concurrency C     games at a time (default 2)
  --fastchess PATH    (default: on PATH)";

const FLAGS: [&str; 8] = [
    "--nodes",
    "--tc",
    "--hash",
    "--games",
    "--sprt",
    "--openings",
    "--concurrency",
    "--fastchess",
];

pub fn main(args: &[String]) {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return say!("{USAGE}");
    }
    // exit code 2: bad arguments; 1: a failed build or match
    if let Err((code, e)) = run(args) {
        let help = ["", "", "\n(rmax ab --help for the options)"][code as usize];
        eprintln!("rmax ab: {e}{help}");
        std::process::exit(code);
    }
}

/// A side of the match: its name in the state's, its program (a copy in target/ab/bin), its commit,
/// its src/lib.rs's code characters, its bench.
pub struct Build {
    pub label: String,
    pub program: PathBuf,
    pub commit: Option<String>,
    pub chars: Option<usize>,
    pub bench: String,
}

/// The match: fastchess's words for a move's limit and hash, the ledger's, the state's name for
/// them; at most `games`; the SPRT's bounds; the openings; games at a time.
pub struct Settings {
    pub limit: String,
    pub condition: String,
    pub name: String,
    pub games: u32,
    pub sprt: Option<[f64; 2]>,
    pub openings: PathBuf,
    pub concurrency: u32,
}

impl Settings {
    pub fn read(a: &Args) -> Result<Settings, String> {
        let nodes = a.number("--nodes", 40_000u64, 1, 1 << 40)?;
        let hash = a.number("--hash", 1u32, 1, 1024)?;
        let (limit, condition, name) = match a.get("--tc") {
            Some(_) if a.has("--nodes") => return Err("--tc and --nodes exclude each other".into()),
            Some(tc) => (
                format!("tc={}", valid_tc(tc, "8+0.08")?),
                tc.into(),
                format!("tc{tc}"),
            ),
            None => {
                let words = format!("{} nodes", thousands(nodes));
                (format!("tc=inf nodes={nodes}"), words, format!("n{nodes}"))
            }
        };
        let sprt = match a.get("--sprt").unwrap_or("0,10") {
            "off" => None,
            bounds => Some(bounds.split_once(',').and_then(|(e0, e1)| {
                let [e0, e1] = [e0, e1].map(|e| e.trim().parse::<f64>().ok());
                Some([e0?, e1?]).filter(|[e0, e1]| e0 < e1)
            })),
        };
        let e = "--sprt takes two bounds E0,E1 (E0 < E1), or off";
        let openings = a.get("--openings").unwrap_or("tests/data/openings.epd");
        let openings = std::env::current_dir()
            .map_err(|e| e.to_string())?
            .join(openings);
        Ok(Settings {
            limit: format!("{limit} option.Hash={hash}"),
            condition: format!("{condition}, Hash {hash}"),
            name: format!("{name}-h{hash}"),
            games: a.number("--games", 20_000, 2, 10_000_000)?,
            sprt: sprt.map_or(Ok(None), |b| b.map(Some).ok_or(e.to_string()))?,
            openings,
            concurrency: a.number("--concurrency", 2, 1, 256)?,
        })
    }

    /// fastchess's command for a new match, its state in `state`.json, its games in .pgn.
    pub fn command(&self, fastchess: &str, new: &Build, base: &Build, state: &Path) -> Vec<String> {
        let mut words = vec![fastchess.to_string()];
        for (b, name) in [(new, "new"), (base, "base")] {
            let cmd = format!("cmd={}", b.program.display());
            words.extend(["-engine".into(), cmd, format!("name={name}")]);
        }
        let rest = format!("-each proto=uci {} -openings", self.limit);
        words.extend(rest.split(' ').map(String::from));
        let format = ["epd", "pgn"][self.openings.extension().is_some_and(|e| e == "pgn") as usize];
        words.push(format!("file={}", self.openings.display()));
        let (rounds, c, seed) = (self.games.div_ceil(2), self.concurrency, fresh() >> 33);
        let rest = format!(
            "format={format} order=random -repeat -rounds {rounds} -concurrency {c} -report \
             penta=true -ratinginterval 10 -srand {seed}"
        );
        words.extend(rest.split(' ').map(String::from));
        if let Some([e0, e1]) = self.sprt {
            let sprt = format!("-sprt elo0={e0} elo1={e1} alpha=0.05 beta=0.05");
            words.extend(sprt.split(' ').map(String::from));
        }
        let (pgn, json) = (with_suffix(state, ".pgn"), with_suffix(state, ".json"));
        words.extend(["-pgnout".into(), format!("file={}", pgn.display())]);
        words.extend(["-config".into(), format!("outname={}", json.display())]);
        words
    }
}

/// `n` with a comma between thousands: 40,000.
pub fn thousands(n: u64) -> String {
    let digits: Vec<char> = n.to_string().chars().collect();
    let groups: Vec<String> = digits
        .rchunks(3)
        .rev()
        .map(|g| g.iter().collect())
        .collect();
    groups.join(",")
}

/// `git args` in the directory here: its output, trimmed.
fn git(args: &[&str]) -> Result<String, String> {
    let out = Command::new("git").args(args).output();
    let out = out.map_err(|e| format!("cannot run git: {e}"))?;
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    let e = format!("git {}: {}", args.join(" "), err.trim());
    out.status
        .success()
        .then(|| text.trim().to_string())
        .ok_or(e)
}

/// `cargo build --release` in `dir` (absolute): the program it made.
fn cargo_build(dir: &Path) -> Result<PathBuf, String> {
    let target = dir.join("target");
    say!("rmax ab: cargo build --release in {}", dir.display());
    let mut cargo = Command::new("cargo");
    cargo
        .args(["build", "--release", "--target-dir"])
        .arg(&target);
    let status = cargo.current_dir(dir).status();
    match status.map_err(|e| format!("cannot run cargo: {e}"))? {
        s if s.success() => {
            let name = format!("rmax{}", std::env::consts::EXE_SUFFIX);
            Ok(target.join("release").join(name))
        }
        s => Err(format!(
            "cargo build --release in {} failed ({s})",
            dir.display()
        )),
    }
}

/// A program's fingerprint: the working tree's builds told apart by what they are.
fn fingerprint(program: &Path) -> Result<String, String> {
    let bytes = fs::read(program).map_err(|e| format!("cannot read {}: {e}", program.display()))?;
    let mut hasher = DefaultHasher::new();
    hasher.write(&bytes);
    Ok(format!("{:08x}", hasher.finish() >> 32))
}

/// `spec` (an rmax program, a git ref, or none: the working tree) built, kept in `dir`.
pub fn build(spec: Option<&str>, dir: &Path) -> Result<Build, String> {
    let (label, program, commit, lib) = match spec {
        Some(file) if Path::new(file).is_file() => {
            let name = Path::new(file)
                .file_name()
                .unwrap_or_default()
                .to_string_lossy();
            let label = format!("{name}-{}", fingerprint(Path::new(file))?);
            (label, PathBuf::from(file), None, None)
        }
        None => {
            let program = cargo_build(&std::env::current_dir().map_err(|e| e.to_string())?)?;
            let label = format!("work-{}", fingerprint(&program)?);
            (label, program, None, fs::read_to_string("src/lib.rs").ok())
        }
        Some(reference) => {
            let commit = git(&["rev-parse", "--verify", &format!("{reference}^{{commit}}")])?;
            let (label, tree) = (
                commit[..12].to_string(),
                dir.join(format!("src-{}", &commit[..12])),
            );
            let kept = dir.join("bin").join(&label);
            if !kept.is_file() {
                let tree_name = tree.to_string_lossy();
                if !tree.is_dir() {
                    git(&["worktree", "add", "--detach", &tree_name, &commit])?;
                }
                let keep = |built| fs::rename(built, &kept).map_err(|e| format!("{e}"));
                let built = cargo_build(&tree).and_then(keep);
                git(&["worktree", "remove", "--force", &tree_name])?;
                built.map_err(|e| format!("cannot build {reference}: {e}"))?;
            }
            let lib = git(&["show", &format!("{commit}:src/lib.rs")]).ok();
            (label, kept, Some(commit[..7].to_string()), lib)
        }
    };
    let kept = dir.join("bin").join(&label);
    if program != kept {
        fs::copy(&program, &kept).map_err(|e| format!("cannot copy {}: {e}", program.display()))?;
    }
    let shown = kept.to_string_lossy().into_owned();
    let bench = bench_signature(&shown).ok_or(format!("{shown} printed no bench"))?;
    let chars = lib.as_deref().map(code_chars);
    Ok(Build {
        label,
        program: kept,
        commit,
        chars,
        bench,
    })
}

/// What fastchess last reported: new's games (n, W, D, L), Elo, pentanomial counts, LLR with
/// its bounds.
#[derive(Debug, PartialEq)]
pub struct Tally {
    pub games: [u32; 4],
    pub elo: String,
    pub penta: String,
    pub llr: Option<[f64; 3]>,
}

/// The last report in fastchess's output `text`, if there is one.
pub fn tally(text: &str) -> Option<Tally> {
    let last = |key: &str| text.lines().rev().find_map(|l| l.trim().strip_prefix(key));
    // LLR: -0.38 (-12.9%) (-2.94, 2.94) [0.00, 10.00]
    let llr = last("LLR: ").and_then(|line| {
        let (value, bounds) = (line.split(' ').next()?, line.split_once(") (")?.1);
        let (lower, upper) = bounds.split_once(')')?.0.split_once(", ")?;
        Some(
            [value, lower, upper]
                .map(|x| x.parse().ok())
                .map(Option::unwrap_or_default),
        )
    });
    Some(Tally {
        games: fastchess_games(text).ok()?,
        elo: last("Elo: ")?.split(", nElo").next()?.into(),
        penta: last("Ptnml(0-2): ")?.split(", WL/DD").next()?.into(),
        llr,
    })
}

impl Tally {
    /// What the SPRT decided.
    pub fn verdict(&self) -> &'static str {
        match self.llr {
            Some([v, _, upper]) if v >= upper => "H1 accepted",
            Some([v, lower, _]) if v <= lower => "H0 accepted",
            Some(_) => "undecided",
            None => "no SPRT",
        }
    }

    /// The games so far on one line.
    pub fn line(&self) -> String {
        let ([n, w, d, l], elo, penta) = (self.games, &self.elo, &self.penta);
        let llr = self
            .llr
            .map(|[v, lower, upper]| format!(", LLR {v:.2} ({lower}, {upper})"));
        let llr = llr.unwrap_or_default();
        format!("{n} games: W {w} D {d} L {l}, Elo {elo}, pentanomial {penta}{llr}")
    }

    /// The ledger's row (tests/ledger.md): date, change, characters, Elo with W D L, games and
    /// condition, verdict, commit, notes. The change is the reader's to write.
    pub fn row(&self, new: &Build, base: &Build, s: &Settings) -> String {
        let [n, w, d, l] = self.games;
        let chars = match (new.chars, base.chars) {
            (Some(a), Some(b)) => format!("{:+}", a as i64 - b as i64),
            _ => "?".into(),
        };
        let verdict = match self.verdict() {
            "H1 accepted" => "kept",
            "H0 accepted" => "dropped",
            _ => "VERDICT",
        };
        let sprt = s.sprt.map(|[e0, e1]| {
            let llr = self.llr.map_or(0.0, |x| x[0]);
            format!("SPRT [{e0}, {e1}] {}, LLR {llr:.2}; ", self.verdict())
        });
        let (date, games) = (today().replace('.', "-"), thousands(n.into()));
        let (elo, condition, commit) = (&self.elo, &s.condition, new.commit.as_deref());
        let notes = format!("{}pentanomial {}", sprt.unwrap_or_default(), self.penta);
        format!(
            "| {date} | CHANGE | {chars} | {elo} (W{w} D{d} L{l}) | {games}, {condition} | \
             {verdict} | {} | {notes}; bench {} -> {} |",
            commit.unwrap_or("COMMIT"),
            base.bench,
            new.bench
        )
    }
}

/// A side as the first lines show it.
fn shown(b: &Build) -> String {
    let chars = b.chars.map_or(String::new(), |c| {
        format!(", {} characters", thousands(c as u64))
    });
    format!("{} (bench {}{chars})", b.label, b.bench)
}

pub fn run(args: &[String]) -> Result<(), (i32, String)> {
    let (usage, failed) = (|e| (2, e), |e| (1, e));
    let a = Args::read(args, &FLAGS, &[]).map_err(usage)?;
    let (base, new) = match &a.words[..] {
        [base] => (base, None),
        [base, new] => (base, Some(new.as_str())),
        _ => return Err(usage("give BASE, and NEW if not this working tree".into())),
    };
    let s = Settings::read(&a).map_err(usage)?;
    let fastchess = a
        .get("--fastchess")
        .map(String::from)
        .or_else(|| on_path("fastchess", &[]));
    let fastchess = fastchess.ok_or(usage(
        "fastchess not found: put it on PATH or give --fastchess".into(),
    ))?;
    if !s.openings.is_file() {
        return Err(usage(format!("no openings at {}", s.openings.display())));
    }
    let dir = std::env::current_dir()
        .map_err(|e| failed(e.to_string()))?
        .join("target/ab");
    let made = fs::create_dir_all(dir.join("bin"));
    made.map_err(|e| failed(format!("cannot make {}: {e}", dir.display())))?;
    let base = build(Some(base), &dir).map_err(failed)?;
    let new = build(new, &dir).map_err(failed)?;
    say!(
        "rmax ab: new {} against base {}, {}",
        shown(&new),
        shown(&base),
        s.condition
    );
    let state = dir.join(format!("{}-vs-{}-{}", base.label, new.label, s.name));
    let json = with_suffix(&state, ".json");
    let command = match json.is_file() {
        true => {
            say!("rmax ab: resuming {} (its settings)", json.display());
            vec![
                fastchess,
                "-config".into(),
                format!("file={}", json.display()),
            ]
        }
        false => s.command(&fastchess, &new, &base, &state),
    };
    let log = with_suffix(&state, ".log");
    let mut options = fs::OpenOptions::new();
    let mut file = options
        .create(true)
        .append(true)
        .open(&log)
        .map_err(|e| failed(e.to_string()))?;
    let mut block = String::new();
    // fastchess's reports said as a line each; its other lines but the games' shown as they are
    let (report, games) = (
        ["Results of", "Elo:", "LOS:", "Games:", "Ptnml", "LLR:"],
        ["Started", "Finished"],
    );
    let (status, _) = each_line(&command, "", |line| {
        let _ = writeln!(file, "{line}");
        if line.starts_with("-----") {
            if let Some(t) = tally(&block) {
                say!("  {}", t.line());
            }
            block.clear();
        } else if report.iter().any(|r| line.starts_with(r)) {
            block += &format!("{line}\n");
        } else if !games.iter().any(|g| line.starts_with(g)) && !line.trim().is_empty() {
            say!("  {line}");
        }
    })
    .map_err(failed)?;
    let text = fs::read_to_string(&log).map_err(|e| failed(e.to_string()))?;
    let t = tally(&text).ok_or(failed(format!("fastchess reported no games ({status})")))?;
    let end = match (status.success(), t.verdict()) {
        (true, verdict) => verdict.to_string(),
        (false, _) => format!("stopped ({status}): the same command resumes"),
    };
    say!("rmax ab: {}: {end}", t.line());
    if let (Some(a), Some(b)) = (new.chars, base.chars) {
        let (a, b) = (a as u64, b as u64);
        say!(
            "src/lib.rs: {} -> {} characters ({:+})",
            thousands(b),
            thousands(a),
            a as i64 - b as i64
        );
    }
    say!("The ledger's row (tests/ledger.md; write the change, check the verdict):");
    say!("{}", t.row(&new, &base, &s));
    Ok(())
}
