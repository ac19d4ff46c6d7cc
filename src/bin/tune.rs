//! A Texel tuner for rmax's evaluation, std only.
//!
//! `tune FILE [--lambda L] [--epochs N] [--lr X] [--reg X] [--holdout PERCENT] [--limit N] ...`
//! fits every evaluation weight to the positions in FILE, lines `FEN [r]` or `FEN [r] score`
//! as `rmax datagen` writes them: the game result r (`1.0`, `0.5` or `0.0`) and a search's
//! score (centipawns), both from White's view. It minimises the mean squared error between
//! each position's target and sigmoid(K * eval / 400) with Adam over the whole data set,
//! after finding the K that fits lib.rs's current weights best. The target blends score and
//! result: `L * sigmoid(K * score / 400) + (1 - L) * r` (the result alone without a score).
//! The weights are printed as the `VALUE` and `TABLES` lines of lib.rs, ready to paste.
//!
//! `tune --check FILE [--perturb]` proves the model is lib.rs's eval: on every position of
//! FILE (a FEN per line; what follows its fields is ignored) the tuner's eval with the weights
//! it decodes from lib.rs's constants must equal `Board::eval`. `--perturb` changes one weight,
//! to show that the check can fail.
//!
//! The model: eval = (mg * phase + eg * (24 - phase)) / 24 from White's view, with
//! mg = sum of w_mg[i] * f[i] and eg = sum of w_eg[i] * f[i] over the features f of the
//! position (+1 per White piece, -1 per Black piece). Adding an evaluation term to lib.rs
//! means adding its features here: a range in the layout below, a few lines in `features`,
//! its current weights in `lib_weights` and its print block in `print_weights`.

use rmax::{Board, PHASE, TABLES, VALUE};
use std::io::Write;
use std::time::Instant;

// ---------------------------------------------------------------------------------------
// The feature layout: each feature has a middle-game and an end-game weight.
// ---------------------------------------------------------------------------------------

/// Material: piece count difference (White - Black) of each type P N B R Q K.
const MATERIAL: usize = 0;
/// Piece-square: piece type * 64 + square in lib.rs's table order (a8 = 0 .. h1 = 63, from
/// the piece owner's side: Black's squares are mirrored).
const PST: usize = MATERIAL + 6;
/// The number of features. A new term goes after the last one and moves this.
const FEATURES: usize = PST + 6 * 64;
/// Full middle-game phase (lib.rs caps the phase here).
const FULL_PHASE: i32 = 24;

/// One position: its sparse features (index, count from White's view) and its phase.
struct Position {
    features: Vec<(u16, i8)>,
    phase: u8,
}

/// The features of `b` and its phase (0 = pawn endgame .. 24 = all pieces on).
fn features(b: &Board) -> Position {
    let mut f: Vec<(usize, i32)> = Vec::with_capacity(64);
    let mut phase = 0;
    for s in (0..128).filter(|s| s & 0x88 == 0) {
        let p = b.b[s];
        if p == 0 {
            continue;
        }
        let (kind, white) = ((p & 7) as usize - 1, p & 8 != 0);
        let sign = if white { 1 } else { -1 };
        // lib.rs's table rows run from rank 8 down for White; Black reads them mirrored
        let (rank, file) = (s >> 4, s & 7);
        let row = if white { 7 - rank } else { rank };
        f.push((MATERIAL + kind, sign));
        f.push((PST + kind * 64 + row * 8 + file, sign));
        phase += PHASE[kind + 1];
    }
    // merge duplicates (White and Black pieces share material features, and mirrored
    // squares) and drop what cancels out, to keep the data small and the epochs quick
    f.sort_unstable();
    let mut features: Vec<(u16, i8)> = Vec::with_capacity(f.len());
    for (i, c) in f {
        match features.last_mut() {
            Some((j, n)) if *j as usize == i => *n += c as i8,
            _ => features.push((i as u16, c as i8)),
        }
    }
    features.retain(|&(_, n)| n != 0);
    Position {
        features,
        phase: phase.min(FULL_PHASE) as u8,
    }
}

/// lib.rs's current weights, decoded from its constants: [mg, eg] per feature.
fn lib_weights() -> Vec<[i32; 2]> {
    let mut w = vec![[0; 2]; FEATURES];
    let tables = TABLES.as_bytes();
    assert_eq!(
        tables.len(),
        768,
        "TABLES should hold 12 tables of 64 squares"
    );
    for kind in 0..6 {
        for (eg, weight) in w[MATERIAL + kind].iter_mut().enumerate() {
            *weight = VALUE[kind * 2 + eg];
        }
        for sq in 0..64 {
            for (eg, weight) in w[PST + kind * 64 + sq].iter_mut().enumerate() {
                *weight = tables[kind * 128 + eg * 64 + sq] as i32 * 4 - 308;
            }
        }
    }
    w
}

/// Weights snapped to what lib.rs can hold, and the table entries that had to be clamped
/// (e.g. `N mg a8 -172`: the knight's middle-game a8 entry wanted -172 cp from the mean).
/// Each table's mean goes into the piece value, so that the tables stay centred; the
/// king's mean is dropped (one king a side: it cancels out).
fn quantize(w: &[[f64; 2]]) -> (Vec<[i32; 2]>, Vec<String>) {
    let mut q = vec![[0; 2]; FEATURES];
    let mut clamped = vec![];
    for kind in 0..6 {
        // pawns never stand on ranks 1 and 8: those entries are unused, left at 0
        let used = |sq: usize| kind > 0 || (8..56).contains(&sq);
        for eg in 0..2 {
            let squares: Vec<usize> = (0..64).filter(|&sq| used(sq)).collect();
            let mean = squares
                .iter()
                .map(|&sq| w[PST + kind * 64 + sq][eg])
                .sum::<f64>()
                / squares.len() as f64;
            q[MATERIAL + kind][eg] = if kind == 5 {
                0
            } else {
                (w[MATERIAL + kind][eg] + mean).round() as i32
            };
            for &sq in &squares {
                // a table char is 4 cp a step, from 35 ('#') to 126 ('~'): never '"' (34),
                // which would end lib.rs's raw string
                let steps = ((w[PST + kind * 64 + sq][eg] - mean) / 4.0).round() as i32;
                let kept = steps.clamp(35 - 77, 126 - 77);
                if kept != steps {
                    let square = format!("{}{}", (b'a' + sq as u8 % 8) as char, 8 - sq / 8);
                    let piece = &"PNBRQK"[kind..=kind];
                    let phase = ["mg", "eg"][eg];
                    clamped.push(format!("{piece} {phase} {square} {:+}", steps * 4));
                }
                q[PST + kind * 64 + sq][eg] = kept * 4;
            }
        }
    }
    (q, clamped)
}

/// The weights as lib.rs's `VALUE` and `TABLES` lines (weights already quantized).
fn print_weights(q: &[[i32; 2]]) -> String {
    let values: Vec<String> = (0..12)
        .map(|i| q[MATERIAL + i / 2][i % 2].to_string())
        .collect();
    let tables: String = (0..768)
        .map(|i| {
            let (kind, eg, sq) = (i / 128, i / 64 % 2, i % 64);
            ((q[PST + kind * 64 + sq][eg] + 308) / 4) as u8 as char
        })
        .collect();
    format!(
        "pub const VALUE: [i32; 12] = [{}];\npub const TABLES: &str = r\"{tables}\";",
        values.join(", ")
    )
}

// ---------------------------------------------------------------------------------------
// Reading positions
// ---------------------------------------------------------------------------------------

/// The FEN at the start of `line` (4 fields, then the move counters if they are numbers)
/// and the words after it.
fn split_fen(line: &str) -> (String, Vec<&str>) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut n = words.len().min(4);
    while n < words.len().min(6) && words[n].parse::<u32>().is_ok() {
        n += 1;
    }
    (words[..n].join(" "), words[n..].to_vec())
}

/// A game result from White's view: `[1.0]`, `[0.5]`, `[0.0]` (also `1-0`, `1/2-1/2`, `0-1`).
fn result(word: &str) -> Option<f32> {
    match word.trim_matches(|c| c == '[' || c == ']' || c == '"' || c == ';') {
        "1.0" | "1" | "1-0" => Some(1.0),
        "0.5" | "1/2-1/2" => Some(0.5),
        "0.0" | "0" | "0-1" => Some(0.0),
        _ => None,
    }
}

/// The lines of `path` that hold positions (blank lines and `#` comments skipped).
fn read_lines(path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

fn fail(msg: &str) -> ! {
    eprintln!("tune: {msg}");
    std::process::exit(2)
}

// ---------------------------------------------------------------------------------------
// --check: the model against Board::eval
// ---------------------------------------------------------------------------------------

/// The model's eval (White's view) with integer weights, rounded as lib.rs rounds.
fn int_eval(p: &Position, w: &[[i32; 2]]) -> i32 {
    let (mut mg, mut eg) = (0, 0);
    for &(i, n) in &p.features {
        mg += w[i as usize][0] * n as i32;
        eg += w[i as usize][1] * n as i32;
    }
    let ph = p.phase as i32;
    (mg * ph + eg * (FULL_PHASE - ph)) / FULL_PHASE
}

fn check(path: &str, perturb: bool) {
    let mut w = lib_weights();
    if perturb {
        w[MATERIAL] = [w[MATERIAL][0] + 10, w[MATERIAL][1] + 10]; // pawns 10 cp dearer
    }
    let (mut checked, mut mismatches) = (0, 0);
    for line in read_lines(path) {
        let (fen, _) = split_fen(&line);
        let b = Board::from_fen(&fen).unwrap_or_else(|e| fail(&format!("bad FEN '{fen}': {e}")));
        let lib = if b.side == 8 { b.eval() } else { -b.eval() };
        let model = int_eval(&features(&b), &w);
        checked += 1;
        if model != lib {
            mismatches += 1;
            if mismatches <= 5 {
                println!("mismatch: {fen}: tuner {model}, Board::eval {lib} (White's view)");
            }
        }
    }
    println!("{checked} positions checked, {mismatches} mismatches");
    if mismatches > 0 || checked == 0 {
        std::process::exit(1);
    }
}

// ---------------------------------------------------------------------------------------
// Tuning
// ---------------------------------------------------------------------------------------

/// All positions, packed: position i's features are `index[start[i]..start[i + 1]]` with
/// counts `count[..]`.
struct Data {
    start: Vec<u32>,
    index: Vec<u16>,
    count: Vec<i8>,
    phase: Vec<u8>,
    result: Vec<f32>,
    /// The search's score (cp, White's view); NaN when the line has none.
    score: Vec<f32>,
    /// What the eval's sigmoid should come near: the result until `set_targets`.
    target: Vec<f32>,
}

impl Data {
    fn len(&self) -> usize {
        self.phase.len()
    }

    /// Positions 0..at, and the rest.
    fn split(self, at: usize) -> (Data, Data) {
        let cut = self.start[at] as usize;
        let rest = Data {
            start: self.start[at..].iter().map(|&s| s - cut as u32).collect(),
            index: self.index[cut..].to_vec(),
            count: self.count[cut..].to_vec(),
            phase: self.phase[at..].to_vec(),
            result: self.result[at..].to_vec(),
            score: self.score[at..].to_vec(),
            target: self.target[at..].to_vec(),
        };
        let mut first = self;
        first.start.truncate(at + 1);
        first.index.truncate(cut);
        first.count.truncate(cut);
        first.phase.truncate(at);
        first.result.truncate(at);
        first.score.truncate(at);
        first.target.truncate(at);
        (first, rest)
    }

    /// How many positions have a score.
    fn scored(&self) -> usize {
        self.score.iter().filter(|s| !s.is_nan()).count()
    }

    /// Each position's target with weight `lambda` on the score's sigmoid (see `target`).
    fn set_targets(&mut self, k: f64, lambda: f64) {
        for ((t, &r), &s) in self.target.iter_mut().zip(&self.result).zip(&self.score) {
            let score = (!s.is_nan()).then_some(s as f64);
            *t = target(r as f64, score, k, lambda) as f32;
        }
    }

    /// The model's eval (White's view) of position i, unrounded.
    fn eval(&self, i: usize, w: &[[f64; 2]]) -> f64 {
        let (mut mg, mut eg) = (0.0, 0.0);
        for j in self.start[i] as usize..self.start[i + 1] as usize {
            let (x, n) = (&w[self.index[j] as usize], self.count[j] as f64);
            mg += x[0] * n;
            eg += x[1] * n;
        }
        let ph = self.phase[i] as f64;
        (mg * ph + eg * (FULL_PHASE as f64 - ph)) / FULL_PHASE as f64
    }
}

fn load(path: &str, limit: usize) -> Data {
    let mut d = Data {
        start: vec![0],
        index: vec![],
        count: vec![],
        phase: vec![],
        result: vec![],
        score: vec![],
        target: vec![],
    };
    let mut skipped = 0;
    for line in read_lines(path).iter().take(limit) {
        let (fen, rest) = split_fen(line);
        let at = rest.iter().position(|w| result(w).is_some());
        let (Ok(b), Some(at)) = (Board::from_fen(&fen), at) else {
            skipped += 1;
            if skipped <= 5 {
                eprintln!("tune: skipped (no FEN and result): {line}");
            }
            continue;
        };
        let r = result(rest[at]).expect("a result there");
        // the score, if any, follows the result
        let score = rest.get(at + 1).and_then(|w| w.parse::<f32>().ok());
        let p = features(&b);
        for (i, n) in p.features {
            d.index.push(i);
            d.count.push(n);
        }
        d.start.push(d.index.len() as u32);
        d.phase.push(p.phase);
        d.result.push(r);
        d.score
            .push(score.filter(|s| s.is_finite()).unwrap_or(f32::NAN));
        d.target.push(r);
    }
    if skipped > 0 {
        eprintln!("tune: {skipped} lines skipped");
    }
    d
}

/// sigmoid(K * eval / 400), with K scaled so that 400 cp at K = 1 means 10 to 1 odds.
fn sigmoid(eval: f64, k: f64) -> f64 {
    1.0 / (1.0 + (-k * eval * std::f64::consts::LN_10 / 400.0).exp())
}

/// A position's target: `lambda * sigmoid(K * score / 400) + (1 - lambda) * result`, or
/// the result when there is no score. The score goes through the eval's own sigmoid, so
/// that at lambda 1 the eval is fitted to the score itself.
fn target(result: f64, score: Option<f64>, k: f64, lambda: f64) -> f64 {
    match score {
        Some(score) => lambda * sigmoid(score, k) + (1.0 - lambda) * result,
        None => result,
    }
}

/// Splits the positions into `threads` ranges and sums `f(range)` over them in parallel.
fn parallel<T: Send>(
    n: usize,
    threads: usize,
    f: impl Fn(std::ops::Range<usize>) -> T + Sync,
    sum: impl Fn(T, T) -> T,
) -> T {
    let chunk = n.div_ceil(threads.max(1)).max(1);
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = (0..n)
            .step_by(chunk)
            .map(|a| s.spawn(move || f(a..(a + chunk).min(n))))
            .collect();
        let mut parts = handles.into_iter().map(|h| h.join().expect("a worker"));
        let first = parts.next().unwrap_or_else(|| f(0..0));
        parts.fold(first, sum)
    })
}

/// Mean squared error of the weights with constant K.
fn error(d: &Data, w: &[[f64; 2]], k: f64, threads: usize) -> f64 {
    let total = parallel(
        d.len(),
        threads,
        |range| {
            range
                .map(|i| (d.target[i] as f64 - sigmoid(d.eval(i, w), k)).powi(2))
                .sum::<f64>()
        },
        |a, b| a + b,
    );
    total / d.len().max(1) as f64
}

/// The error and its gradient (per weight: [mg, eg]).
fn gradient(d: &Data, w: &[[f64; 2]], k: f64, threads: usize) -> (f64, Vec<[f64; 2]>) {
    let scale = k * std::f64::consts::LN_10 / 400.0;
    let (total, mut g) = parallel(
        d.len(),
        threads,
        |range| {
            let mut g = vec![[0.0; 2]; FEATURES];
            let mut total = 0.0;
            for i in range {
                let s = sigmoid(d.eval(i, w), k);
                let diff = s - d.target[i] as f64;
                total += diff * diff;
                // d(error)/d(eval), then d(eval)/d(weight) = count * phase share
                let de = 2.0 * diff * s * (1.0 - s) * scale;
                let ph = d.phase[i] as f64 / FULL_PHASE as f64;
                let (gm, ge) = (de * ph, de * (1.0 - ph));
                for j in d.start[i] as usize..d.start[i + 1] as usize {
                    let (x, n) = (&mut g[d.index[j] as usize], d.count[j] as f64);
                    x[0] += gm * n;
                    x[1] += ge * n;
                }
            }
            (total, g)
        },
        |(t1, mut g1), (t2, g2)| {
            for (a, b) in g1.iter_mut().zip(&g2) {
                a[0] += b[0];
                a[1] += b[1];
            }
            (t1 + t2, g1)
        },
    );
    let n = d.len().max(1) as f64;
    for x in &mut g {
        x[0] /= n;
        x[1] /= n;
    }
    (total / n, g)
}

/// The K that fits weights `w` to the targets best (golden-section search, the error being
/// unimodal in K). Called while the targets are the results: see `main`.
fn find_k(d: &Data, w: &[[f64; 2]], threads: usize) -> f64 {
    let (mut a, mut b) = (0.05, 4.0);
    let r = (5f64.sqrt() - 1.0) / 2.0;
    while b - a > 1e-4 {
        let (c, e) = (b - r * (b - a), a + r * (b - a));
        if error(d, w, c, threads) < error(d, w, e, threads) {
            b = e;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

const USAGE: &str = "usage: tune FILE [--lambda L] [--epochs N] [--lr X] [--reg X] \
    [--holdout PERCENT] [--limit N] [--threads T] [--report N] [--dump N]\n       \
    tune --check FILE [--perturb]";

/// The weight on the scores when --lambda is not given and every position has one. Not
/// measured here: half and half keeps the results' anchor to how games end (the labels may
/// come from rmax's own search, whose blind spots a fit to them alone would learn) while
/// the scores cut most of the results' noise. With a score missing anywhere: 0, results
/// alone, as before there were scores.
const LAMBDA_ALL_SCORED: f64 = 0.5;

struct Options {
    file: String,
    epochs: usize,
    lr: f64,
    limit: usize,
    threads: usize,
    report: usize,
    dump: usize,
    holdout: usize,
    reg: f64,
    /// --lambda: the weight on the scores (None: the default, see LAMBDA_ALL_SCORED).
    lambda: Option<f64>,
}

fn options(args: &[String]) -> Options {
    let Some((file, rest)) = args.split_first().filter(|(f, _)| !f.starts_with("--")) else {
        fail(USAGE)
    };
    let mut o = Options {
        file: file.clone(),
        epochs: 1000,
        lr: 1.0,
        limit: usize::MAX,
        threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
        report: 10,
        dump: 250,
        holdout: 10,
        reg: 3e-7,
        lambda: None,
    };
    for pair in rest.chunks(2) {
        let [name, value] = pair else {
            fail(&format!("{} needs a value", pair[0]))
        };
        let int = || {
            value
                .parse::<usize>()
                .unwrap_or_else(|_| fail(&format!("{name}: '{value}' is not a number")))
        };
        match name.as_str() {
            "--epochs" => o.epochs = int(),
            "--limit" => o.limit = int(),
            "--threads" => o.threads = int().clamp(1, 256),
            "--report" => o.report = int().max(1),
            "--dump" => o.dump = int().max(1),
            "--holdout" => o.holdout = int().min(90),
            "--lr" | "--reg" => {
                let x = value
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .unwrap_or_else(|| fail(&format!("{name}: '{value}' is not a number")));
                *(if name == "--lr" {
                    &mut o.lr
                } else {
                    &mut o.reg
                }) = x;
            }
            "--lambda" => {
                let x = value
                    .parse::<f64>()
                    .ok()
                    .filter(|x| (0.0..=1.0).contains(x));
                o.lambda = Some(x.unwrap_or_else(|| {
                    fail(&format!("--lambda: '{value}' is not a number from 0 to 1"))
                }));
            }
            _ => fail(&format!("unknown option {name}")),
        }
    }
    o
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [check_flag, file] if check_flag == "--check" => return check(file, false),
        [check_flag, file, p] if check_flag == "--check" && p == "--perturb" => {
            return check(file, true)
        }
        _ => {}
    }
    let o = options(&args);
    let clock = Instant::now();
    let all = load(&o.file, o.limit);
    // the file holds whole games one after the other: its last lines are whole other games
    let held = all.len() * o.holdout / 100;
    let at = all.len() - held;
    let scored = all.scored();
    let (mut d, mut valid) = all.split(at);
    if d.len() == 0 {
        fail(&format!("{}: no positions to tune on", o.file));
    }
    let total = d.len() + valid.len();
    println!(
        "{total} positions ({} to tune on, {} held out), {scored} with a score, {:.1} features \
         a position, loaded in {:.1} s",
        d.len(),
        valid.len(),
        d.index.len() as f64 / d.len() as f64,
        clock.elapsed().as_secs_f64()
    );
    let start: Vec<[f64; 2]> = lib_weights()
        .iter()
        .map(|x| [x[0] as f64, x[1] as f64])
        .collect();
    // K is fitted to the results, before the scores come in: it sets the scale of the eval
    // against how games end. Fitted to the blend it would be meaningless, as the targets
    // move with K: at lambda 1 both sigmoids are 1/2 at K = 0, where the error vanishes.
    let k = find_k(&d, &start, o.threads);
    let (lambda, why) = match o.lambda {
        Some(lambda) => (lambda, "--lambda".to_string()),
        None if scored == total => (LAMBDA_ALL_SCORED, "every position has a score".into()),
        None => (0.0, format!("{} positions have no score", total - scored)),
    };
    d.set_targets(k, lambda);
    valid.set_targets(k, lambda);
    println!("K = {k:.4} (fitted to the results)");
    println!(
        "lambda = {lambda} ({why}): target = lambda * sigmoid(K * score / 400) + (1 - lambda) \
         * result{}",
        if scored < total && lambda > 0.0 {
            "; the result alone where there is no score"
        } else {
            ""
        }
    );
    let held_error = |w: &[[f64; 2]]| {
        if valid.len() > 0 {
            format!(", held out {:.6}", error(&valid, w, k, o.threads))
        } else {
            String::new()
        }
    };
    let start_error = error(&d, &start, k, o.threads);
    println!(
        "lib.rs's weights: error {start_error:.6}{}",
        held_error(&start)
    );
    // Adam, full batch; the step shrinks linearly to a tenth of --lr over the run. The L2
    // pull towards lib.rs's weights (--reg) keeps rarely seen entries (a king on a6 in the
    // middle game) from chasing the results of the few games they occur in.
    let (b1, b2, eps): (f64, f64, f64) = (0.9, 0.999, 1e-8);
    let mut w = start.clone();
    let mut m = vec![[0.0; 2]; FEATURES];
    let mut v = vec![[0.0; 2]; FEATURES];
    // the weights that did best on the held-out games so far, with that error and epoch
    let (mut best, mut best_error, mut best_epoch) = (w.clone(), f64::MAX, 0);
    let tune_clock = Instant::now();
    for epoch in 1..=o.epochs {
        let (err, g) = gradient(&d, &w, k, o.threads);
        let lr = o.lr * (1.0 - 0.9 * (epoch - 1) as f64 / o.epochs as f64);
        let (c1, c2) = (1.0 - b1.powi(epoch as i32), 1.0 - b2.powi(epoch as i32));
        for i in 0..FEATURES {
            for j in 0..2 {
                let g = g[i][j] + o.reg * (w[i][j] - start[i][j]);
                m[i][j] = b1 * m[i][j] + (1.0 - b1) * g;
                v[i][j] = b2 * v[i][j] + (1.0 - b2) * g * g;
                w[i][j] -= lr * (m[i][j] / c1) / ((v[i][j] / c2).sqrt() + eps);
            }
        }
        if epoch % o.report == 0 || epoch == 1 || epoch == o.epochs {
            let secs = tune_clock.elapsed().as_secs_f64();
            let mut held = String::new();
            if valid.len() > 0 {
                let e = error(&valid, &w, k, o.threads);
                if e < best_error {
                    (best, best_error, best_epoch) = (w.clone(), e, epoch);
                }
                held = format!(" held out {e:.6}");
            }
            println!(
                "epoch {epoch} error {err:.6}{held} time {secs:.1} s ({:.3} s an epoch)",
                secs / epoch as f64
            );
        }
        if epoch % o.dump == 0 && epoch < o.epochs {
            let (q, clamped) = quantize(&w);
            let n = clamped.len();
            println!("weights after epoch {epoch} ({n} table entries clamped):");
            println!("{}", print_weights(&q));
        }
        let _ = std::io::stdout().flush();
    }
    if valid.len() == 0 {
        (best, best_epoch) = (w, o.epochs);
    }
    let (q, clamped) = quantize(&best);
    let qw: Vec<[f64; 2]> = q.iter().map(|x| [x[0] as f64, x[1] as f64]).collect();
    println!(
        "done: {} epochs in {:.1} s; K = {k:.4}, lambda = {lambda}; the weights of epoch {best_epoch} (best on \
         the held-out games): error {start_error:.6} -> {:.6} ({:.6} with the printed \
         weights{}); {} table entries clamped",
        o.epochs,
        tune_clock.elapsed().as_secs_f64(),
        error(&d, &best, k, o.threads),
        error(&d, &qw, k, o.threads),
        held_error(&qw),
        clamped.len()
    );
    if !clamped.is_empty() {
        println!(
            "clamped (wanted, from the table's mean): {}",
            clamped.join(", ")
        );
    }
    println!("{}", print_weights(&q));
}

#[cfg(test)]
mod tests {
    use super::*;

    const FENS: [&str; 4] = [
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    ];

    fn data() -> Data {
        let text: String = FENS
            .iter()
            .zip(["[1.0]", "[0.5]", "[0.0]", "[1.0]"])
            .map(|(f, r)| format!("{f} {r}\n"))
            .collect();
        let path = std::env::temp_dir().join(format!("rmax-tune-unit-{}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let d = load(path.to_str().unwrap(), usize::MAX);
        let _ = std::fs::remove_file(path);
        d
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let d = data();
        assert_eq!(d.len(), 4);
        let w: Vec<[f64; 2]> = lib_weights()
            .iter()
            .map(|x| [x[0] as f64, x[1] as f64])
            .collect();
        let (err, g) = gradient(&d, &w, 1.1, 2);
        assert!((err - error(&d, &w, 1.1, 1)).abs() < 1e-12);
        let mut tested = 0;
        for i in 0..FEATURES {
            for j in 0..2 {
                if g[i][j] == 0.0 {
                    continue;
                }
                let at = |h: f64| {
                    let mut x = w.clone();
                    x[i][j] += h;
                    error(&d, &x, 1.1, 1)
                };
                let numeric = (at(0.01) - at(-0.01)) / 0.02;
                assert!(
                    (numeric - g[i][j]).abs() <= 1e-6 * g[i][j].abs() + 1e-12,
                    "weight {i}/{j}: {numeric} vs {}",
                    g[i][j]
                );
                tested += 1;
            }
        }
        assert!(tested > 30, "{tested}");
    }

    #[test]
    fn targets_blend_the_score_sigmoid_and_the_result() {
        let k = 0.9;
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        // lambda 1: the score's sigmoid alone, with the eval's K; lambda 0: the result alone
        assert!(close(target(0.0, Some(150.0), k, 1.0), sigmoid(150.0, k)));
        assert!(close(target(1.0, Some(-80.0), k, 1.0), sigmoid(-80.0, k)));
        assert!(close(target(0.5, Some(150.0), k, 0.0), 0.5));
        let blend = 0.25 * sigmoid(300.0, k) + 0.75;
        assert!(close(target(1.0, Some(300.0), k, 0.25), blend));
        // no score: the result, whatever lambda
        for lambda in [0.0, 0.5, 1.0] {
            assert!(close(target(0.0, None, k, lambda), 0.0));
        }
        // 0 cp is even; the sigmoid is White's winning chance, rising with the score
        assert!(close(target(1.0, Some(0.0), k, 1.0), 0.5));
        assert!(target(0.0, Some(3000.0), k, 1.0) > 0.9999);
        assert!(target(0.0, Some(100.0), 2.0 * k, 1.0) > target(0.0, Some(100.0), k, 1.0));
    }

    #[test]
    fn lines_with_and_without_scores_load_and_blend() {
        let text = format!(
            "{} [1.0]\n{} [0.5] -250\n{} [0.0] 40 some comment\n{} [0.5] 1-0\n",
            FENS[0], FENS[1], FENS[2], FENS[3]
        );
        let path = std::env::temp_dir().join(format!("rmax-tune-mixed-{}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let mut d = load(path.to_str().unwrap(), usize::MAX);
        let _ = std::fs::remove_file(path);
        assert_eq!(d.result, [1.0, 0.5, 0.0, 0.5]);
        assert_eq!(d.scored(), 2);
        assert!(d.score[0].is_nan() && d.score[3].is_nan());
        assert_eq!(&d.score[1..3], [-250.0, 40.0]);
        assert_eq!(d.target, d.result, "the results until set_targets");
        d.set_targets(1.0, 1.0);
        let expected = [1.0, sigmoid(-250.0, 1.0), sigmoid(40.0, 1.0), 0.5];
        for (t, e) in d.target.iter().zip(expected) {
            assert!((*t as f64 - e).abs() < 1e-6, "{:?}", d.target);
        }
    }

    #[test]
    fn quantizing_moves_each_piece_square_value_by_at_most_a_rounding() {
        let w: Vec<[f64; 2]> = lib_weights()
            .iter()
            .map(|x| [x[0] as f64, x[1] as f64])
            .collect();
        let (q, clamped) = quantize(&w);
        let mut off = 0;
        for kind in 0..5 {
            for sq in (0..64).filter(|&sq| kind > 0 || (8..56).contains(&sq)) {
                for eg in 0..2 {
                    let was = w[MATERIAL + kind][eg] + w[PST + kind * 64 + sq][eg];
                    let now = q[MATERIAL + kind][eg] + q[PST + kind * 64 + sq][eg];
                    off += ((now as f64 - was).abs() > 2.5) as usize;
                }
            }
        }
        assert_eq!(off, clamped.len(), "{clamped:?}");
    }
}
