//! A Texel tuner for rmax's evaluation, std only.
//!
//! `tune FILE [--lambda L] [--tables] [--epochs N] [--lr X] [--reg X] [--holdout PERCENT] ...`
//! fits the evaluation's weights to the positions in FILE, lines `FEN [r]` or `FEN [r] score`
//! as `rmax datagen` writes them: the game result r (`1.0`, `0.5` or `0.0`) and a search's
//! score (centipawns), both from White's view. It minimises the mean squared error between
//! each position's target and sigmoid(K * eval / 400) with Adam over the whole data set.
//! The target blends score and result: `L * sigmoid(Ks * score / 400) + (1 - L) * r` (the
//! result alone without a score), where K fits lib.rs's eval to the results and Ks fits the
//! scores to the results: each side's centipawns on its own scale. The piece values and the
//! terms `W` are fitted; the piece-square tables too with `--tables` (else they stay as they
//! are). The weights are printed as the `VALUE`, `TABLES` and `W` blocks of lib.rs, ready to
//! paste.
//!
//! `tune --check FILE [--perturb]` proves the model is lib.rs's eval: on every position of
//! FILE (a FEN per line; what follows its fields is ignored) the tuner's eval with the weights
//! it decodes from lib.rs's constants must equal `Board::eval`. `--perturb` changes one weight,
//! to show that the check can fail.
//!
//! The model: eval = (mg * phase + eg * scale * (24 - phase)) / 24 from White's view (scale:
//! lib.rs's end-game scaling by the pawns of the side ahead, `eg_scale`; the gradient holds
//! it constant, as it moves only in steps), with
//! mg = sum of w_mg[i] * f[i] and eg = sum of w_eg[i] * f[i] over the features f of the
//! position. Material and piece-square features count +1 per White piece and -1 per Black
//! piece; the count of term i of `W` is `Board::terms` with weight i alone set to 1, which
//! is exact because `terms` is linear in its weights (the check fails if it ever is not).
//! A new term in lib.rs therefore needs nothing here but its line in `GROUPS`.

use rmax::{Board, PHASE, TABLES, VALUE, W};
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
/// The terms of lib.rs's `W`, in its order.
const TERMS: usize = PST + 6 * 64;
/// The number of features.
const FEATURES: usize = TERMS + W.len();
/// Full middle-game phase (lib.rs caps the phase here).
const FULL_PHASE: i32 = 24;

/// lib.rs's `W` as it is laid out there: how many weights a line holds, and the line's
/// comment. `print_terms` writes the block in this form, and a test finds that block in
/// lib.rs, so that a tuned block pastes over the old one.
const GROUPS: [(usize, &str); 13] = [
    (1, "0 tempo"),
    (1, "1 bishop pair"),
    (5, "2..6 mobility, a square: N B R Q K"),
    (6, "7..12 defended by a pawn: P N B R Q K"),
    (5, "13..17 half-open file: N B R Q K"),
    (5, "18..22 open file: N B R Q K"),
    (2, "23, 24 attacked by a pawn: side to move's, the other's"),
    (6, "25..30 passed pawn, rank 1..6"),
    (6, "31..36 passed and blocked (a piece ahead)"),
    (1, "37 passed and defended"),
    (
        2,
        "38, 39 passed: rank * own king's, enemy king's distance to the square ahead",
    ),
    (3, "40 doubled, 41 isolated, 42 phalanx"),
    (2, "43, 44 pawn shield: one and two ranks ahead"),
];

/// One position: its sparse features (index, count from White's view), its phase and each
/// side's pawns (White, Black), for the end game's scaling.
struct Position {
    features: Vec<(u16, i16)>,
    phase: u8,
    pawns: [u8; 2],
}

/// lib.rs's end-game scale, in 128ths, of a position with middle-game and end-game sums `mg`
/// and `eg` (White's view; integer sums convert to f64 exactly): the side ahead (Black if the
/// end game is below 0, or it is 0 and the middle game is) with m of its 8 pawns missing keeps
/// 128 - m * m (m < 0 with more than 8).
fn eg_scale(pawns: [u8; 2], mg: f64, eg: f64) -> i32 {
    let black_ahead = eg < 0.0 || eg == 0.0 && mg < 0.0;
    let m = 8 - pawns[black_ahead as usize] as i32;
    128 - m * m
}

/// The features of `b` and its phase (0 = pawn endgame .. 24 = all pieces on).
fn features(b: &Board) -> Position {
    let mut f: Vec<(usize, i32)> = Vec::with_capacity(96);
    let (mut phase, mut pawns) = (0, [0u8; 2]);
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
        if kind == 0 {
            pawns[!white as usize] += 1;
        }
        f.push((MATERIAL + kind, sign));
        f.push((PST + kind * 64 + row * 8 + file, sign));
        phase += PHASE[kind + 1];
    }
    // each term's count: the terms with its weight alone at 1 (packed: 1 in the middle game)
    let mut unit = [0; W.len()];
    for i in 0..W.len() {
        unit[i] = 1;
        f.push((TERMS + i, b.terms(&unit)));
        unit[i] = 0;
    }
    // merge duplicates (White and Black pieces share material features, and mirrored
    // squares) and drop what cancels out, to keep the data small and the epochs quick
    f.sort_unstable();
    let mut features: Vec<(u16, i16)> = Vec::with_capacity(f.len());
    for (i, c) in f {
        match features.last_mut() {
            Some((j, n)) if *j as usize == i => *n += c as i16,
            _ => features.push((i as u16, c as i16)),
        }
    }
    features.retain(|&(_, n)| n != 0);
    Position {
        features,
        phase: phase.min(FULL_PHASE) as u8,
        pawns,
    }
}

/// The middle-game and end-game halves of a packed lib.rs weight.
fn unpack(w: i32) -> [i32; 2] {
    [w as i16 as i32, (w + 0x8000) >> 16]
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
    for (i, &x) in W.iter().enumerate() {
        w[TERMS + i] = unpack(x);
    }
    w
}

/// The features of group `g` of `GROUPS`.
fn group(g: usize) -> std::ops::Range<usize> {
    let at = TERMS + GROUPS[..g].iter().map(|g| g.0).sum::<usize>();
    at..at + GROUPS[g].0
}

/// Which weights a fit moves: piece values and terms but the `dropped` groups, and the
/// tables when `tables`.
fn fitted(tables: bool, values: bool, dropped: &[usize]) -> Vec<bool> {
    (0..FEATURES)
        .map(|i| (tables || !(PST..TERMS).contains(&i)) && (values || i >= PST))
        .enumerate()
        .map(|(i, free)| free && !dropped.iter().any(|&g| group(g).contains(&i)))
        .collect()
}

/// Weights snapped to what lib.rs can hold, and the table entries that had to be clamped
/// (e.g. `N mg a8 -172`: the knight's middle-game a8 entry wanted -172 cp from the mean).
/// With `tables`, each table's mean goes into the piece value, so that the tables stay
/// centred; the king's mean is dropped (one king a side: it cancels out). Without, the
/// tables are lib.rs's, as they were not fitted.
fn quantize(w: &[[f64; 2]], tables: bool) -> (Vec<[i32; 2]>, Vec<String>) {
    let mut q = lib_weights();
    let mut clamped = vec![];
    for kind in 0..6 {
        // pawns never stand on ranks 1 and 8: those entries are unused, left at 0
        let used = |sq: usize| kind > 0 || (8..56).contains(&sq);
        for eg in 0..2 {
            let squares: Vec<usize> = (0..64).filter(|&sq| used(sq)).collect();
            let mean = if tables {
                squares
                    .iter()
                    .map(|&sq| w[PST + kind * 64 + sq][eg])
                    .sum::<f64>()
                    / squares.len() as f64
            } else {
                0.0
            };
            q[MATERIAL + kind][eg] = if kind == 5 {
                0
            } else {
                (w[MATERIAL + kind][eg] + mean).round() as i32
            };
            for &sq in squares.iter().filter(|_| tables) {
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
    for i in TERMS..FEATURES {
        // a packed weight holds two i16 halves
        q[i] = w[i].map(|x| x.round().clamp(-32000.0, 32000.0) as i32);
    }
    (q, clamped)
}

/// The weights as lib.rs's `VALUE`, `TABLES` and `W` (weights already quantized).
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
        "pub const VALUE: [i32; 12] = [{}];\npub const TABLES: &str = r\"{tables}\";\n{}",
        values.join(", "),
        print_terms(&q[TERMS..])
    )
}

/// The `W` block of lib.rs, from `pub const W` to its closing `];`, line by line as `GROUPS`
/// lays it out.
fn print_terms(w: &[[i32; 2]]) -> String {
    let mut out = format!("pub const W: [i32; {}] = [\n", W.len());
    let mut at = 0;
    for (n, comment) in GROUPS {
        let line: Vec<String> = w[at..at + n]
            .iter()
            .map(|[mg, eg]| format!("s({mg}, {eg}),"))
            .collect();
        out += &format!("    {} // {comment}\n", line.join(" "));
        at += n;
    }
    out + "];"
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
    let (ph, scale) = (p.phase as i32, eg_scale(p.pawns, mg as f64, eg as f64));
    (mg * ph + eg * scale / 128 * (FULL_PHASE - ph)) / FULL_PHASE
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
        if model != lib || b.terms(&[0; W.len()]) != 0 {
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
    count: Vec<i16>,
    phase: Vec<u8>,
    pawns: Vec<[u8; 2]>,
    result: Vec<f32>,
    /// The search's score (cp, White's view); NaN when the line has none.
    score: Vec<f32>,
    /// What the eval's sigmoid should come near: the result until `set_targets`.
    target: Vec<f32>,
}

impl Data {
    fn new() -> Data {
        Data {
            start: vec![0],
            index: vec![],
            count: vec![],
            phase: vec![],
            pawns: vec![],
            result: vec![],
            score: vec![],
            target: vec![],
        }
    }

    fn len(&self) -> usize {
        self.phase.len()
    }

    /// Adds a position with its result and score (NaN: none).
    fn push(&mut self, p: Position, result: f32, score: f32) {
        for (i, n) in p.features {
            self.index.push(i);
            self.count.push(n);
        }
        self.start.push(self.index.len() as u32);
        self.phase.push(p.phase);
        self.pawns.push(p.pawns);
        self.result.push(result);
        self.score.push(score);
        self.target.push(result);
    }

    /// Appends `other`'s positions.
    fn extend(&mut self, other: Data) {
        let base = self.index.len() as u32;
        self.start.extend(other.start[1..].iter().map(|s| s + base));
        self.index.extend(other.index);
        self.count.extend(other.count);
        self.phase.extend(other.phase);
        self.pawns.extend(other.pawns);
        self.result.extend(other.result);
        self.score.extend(other.score);
        self.target.extend(other.target);
    }

    /// Positions 0..at, and the rest.
    fn split(self, at: usize) -> (Data, Data) {
        let cut = self.start[at] as usize;
        let rest = Data {
            start: self.start[at..].iter().map(|&s| s - cut as u32).collect(),
            index: self.index[cut..].to_vec(),
            count: self.count[cut..].to_vec(),
            phase: self.phase[at..].to_vec(),
            pawns: self.pawns[at..].to_vec(),
            result: self.result[at..].to_vec(),
            score: self.score[at..].to_vec(),
            target: self.target[at..].to_vec(),
        };
        let mut first = self;
        first.start.truncate(at + 1);
        first.index.truncate(cut);
        first.count.truncate(cut);
        first.phase.truncate(at);
        first.pawns.truncate(at);
        first.result.truncate(at);
        first.score.truncate(at);
        first.target.truncate(at);
        (first, rest)
    }

    /// How many positions have a score.
    fn scored(&self) -> usize {
        self.score.iter().filter(|s| !s.is_nan()).count()
    }

    /// Each position's target with weight `lambda` on the score's sigmoid (see `target`),
    /// the scores read with their own `k`.
    fn set_targets(&mut self, k: f64, lambda: f64) {
        for ((t, &r), &s) in self.target.iter_mut().zip(&self.result).zip(&self.score) {
            let score = (!s.is_nan()).then_some(s as f64);
            *t = target(r as f64, score, k, lambda) as f32;
        }
    }

    /// The model's eval (White's view) of position i, unrounded.
    fn eval(&self, i: usize, w: &[[f64; 2]]) -> f64 {
        let (mg, eg) = self.halves(i, w);
        self.taper(i, mg, eg)
    }

    /// Position i's eval from its middle-game and end-game sums: the end game scaled, then
    /// tapered by phase.
    fn taper(&self, i: usize, mg: f64, eg: f64) -> f64 {
        let ph = self.phase[i] as f64;
        (mg * ph + eg * self.scale(i, mg, eg) * (FULL_PHASE as f64 - ph)) / FULL_PHASE as f64
    }

    /// The middle-game and end-game sums of position i.
    fn halves(&self, i: usize, w: &[[f64; 2]]) -> (f64, f64) {
        let (mut mg, mut eg) = (0.0, 0.0);
        for j in self.start[i] as usize..self.start[i + 1] as usize {
            let (x, n) = (&w[self.index[j] as usize], self.count[j] as f64);
            mg += x[0] * n;
            eg += x[1] * n;
        }
        (mg, eg)
    }

    /// The end game's scale (a fraction) of position i with halves mg and eg: `eg_scale`,
    /// held constant by the gradient (it moves only in steps).
    fn scale(&self, i: usize, mg: f64, eg: f64) -> f64 {
        eg_scale(self.pawns[i], mg, eg) as f64 / 128.0
    }
}

/// The positions of `path` (at most `limit`), read by `threads` threads (finding a
/// position's term counts takes a few dozen evaluations).
fn load(path: &str, limit: usize, threads: usize) -> Data {
    let lines: Vec<String> = read_lines(path).into_iter().take(limit).collect();
    let (d, skipped) = parallel(
        lines.len(),
        threads,
        |range| {
            let (mut d, mut skipped) = (Data::new(), vec![]);
            for line in &lines[range] {
                let (fen, rest) = split_fen(line);
                let at = rest.iter().position(|w| result(w).is_some());
                let (Ok(b), Some(at)) = (Board::from_fen(&fen), at) else {
                    skipped.push(line.clone());
                    continue;
                };
                let r = result(rest[at]).expect("a result there");
                // the score, if any, follows the result
                let score = rest.get(at + 1).and_then(|w| w.parse::<f32>().ok());
                let score = score.filter(|s| s.is_finite()).unwrap_or(f32::NAN);
                d.push(features(&b), r, score);
            }
            (d, skipped)
        },
        |(mut a, mut sa), (b, sb)| {
            a.extend(b);
            sa.extend(sb);
            (a, sa)
        },
    );
    for line in skipped.iter().take(5) {
        eprintln!("tune: skipped (no FEN and result): {line}");
    }
    if !skipped.is_empty() {
        eprintln!("tune: {} lines skipped", skipped.len());
    }
    d
}

/// sigmoid(K * eval / 400), with K scaled so that 400 cp at K = 1 means 10 to 1 odds.
fn sigmoid(eval: f64, k: f64) -> f64 {
    1.0 / (1.0 + (-k * eval * std::f64::consts::LN_10 / 400.0).exp())
}

/// A position's target: `lambda * sigmoid(K * score / 400) + (1 - lambda) * result`, or
/// the result when there is no score. K is the scores' own (see `fit_k`).
fn target(result: f64, score: Option<f64>, k: f64, lambda: f64) -> f64 {
    match score {
        Some(score) => lambda * sigmoid(score, k) + (1.0 - lambda) * result,
        None => result,
    }
}

/// Splits `0..n` into `threads` ranges (in order) and folds `f(range)` over them in parallel.
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
                let (mg, eg) = d.halves(i, w); // (once: the eval and its scale need them)
                let s = sigmoid(d.taper(i, mg, eg), k);
                let diff = s - d.target[i] as f64;
                total += diff * diff;
                // d(error)/d(eval), then d(eval)/d(weight) = count * phase share (the end
                // game's times its scale)
                let de = 2.0 * diff * s * (1.0 - s) * scale;
                let ph = d.phase[i] as f64 / FULL_PHASE as f64;
                let (gm, ge) = (de * ph, de * (1.0 - ph) * d.scale(i, mg, eg));
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

/// The K with which sigmoid(K * x / 400) predicts the results best, over (x, result) pairs
/// (golden-section search: the error is unimodal in K).
fn fit_k(pairs: &[(f64, f64)]) -> f64 {
    let err = |k: f64| -> f64 {
        pairs
            .iter()
            .map(|&(x, r)| (r - sigmoid(x, k)).powi(2))
            .sum()
    };
    let (mut a, mut b) = (0.05, 4.0);
    let r = (5f64.sqrt() - 1.0) / 2.0;
    while b - a > 1e-4 {
        let (c, e) = (b - r * (b - a), a + r * (b - a));
        if err(c) < err(e) {
            b = e;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

/// The eval's K (weights `w` against the results) and the scores' K (against the results
/// of the positions that have one; 1 when none has).
fn fit_ks(d: &Data, w: &[[f64; 2]]) -> (f64, f64) {
    let evals: Vec<(f64, f64)> = (0..d.len())
        .map(|i| (d.eval(i, w), d.result[i] as f64))
        .collect();
    let scores: Vec<(f64, f64)> = (0..d.len())
        .filter(|&i| !d.score[i].is_nan())
        .map(|i| (d.score[i] as f64, d.result[i] as f64))
        .collect();
    let ks = if scores.is_empty() {
        1.0
    } else {
        fit_k(&scores)
    };
    (fit_k(&evals), ks)
}

const USAGE: &str =
    "usage: tune FILE [--lambda L] [--tables] [--keep-values] [--drop G,G|all] [--epochs N] [--lr X] [--reg X] \
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
    /// --tables: fit the piece-square tables too.
    tables: bool,
    /// --keep-values: hold the piece values at lib.rs's.
    keep_values: bool,
    /// --drop: groups of `W` (numbers in `GROUPS`) held at 0, to see what a term is worth.
    drop: Vec<usize>,
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
        tables: false,
        keep_values: false,
        drop: vec![],
    };
    let mut rest = rest.iter();
    while let Some(name) = rest.next() {
        let flag = match name.as_str() {
            "--tables" => Some(&mut o.tables),
            "--keep-values" => Some(&mut o.keep_values),
            _ => None,
        };
        if let Some(flag) = flag {
            *flag = true; // a flag takes no value
            continue;
        }
        let Some(value) = rest.next() else {
            fail(&format!("{name} needs a value"))
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
            "--drop" if value == "all" => o.drop = (0..GROUPS.len()).collect(),
            "--drop" => {
                for g in value.split(',') {
                    match g.parse::<usize>() {
                        Ok(g) if g < GROUPS.len() => o.drop.push(g),
                        _ => fail(&format!(
                            "--drop: '{g}' is not a group of W (0 to {})",
                            GROUPS.len() - 1
                        )),
                    }
                }
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

/// The data, split into positions to tune on and held-out games, with their targets set;
/// and the eval's K.
fn prepare(o: &Options, start: &[[f64; 2]]) -> (Data, Data, f64) {
    let clock = Instant::now();
    let all = load(&o.file, o.limit, o.threads);
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
    // Both Ks are fitted to the results: K sets the eval's scale against how games end, Ks
    // the scores' (another engine's centipawns are not rmax's). Fitted to the blend, K would
    // be meaningless, as the targets move with it: at lambda 1 both sigmoids are 1/2 at
    // K = 0, where the error vanishes.
    // K is PeSTO's: lib.rs's piece values and tables with the terms at 0. It anchors the
    // eval's scale (the search's margins are in its centipawns); from weights with the terms,
    // it would follow whatever scale their start values happen to have.
    let mut pesto = start.to_vec();
    pesto[TERMS..].fill([0.0; 2]);
    let (k, ks) = fit_ks(&d, &pesto);
    let (lambda, why) = match o.lambda {
        Some(lambda) => (lambda, "--lambda".to_string()),
        None if scored == total => (LAMBDA_ALL_SCORED, "every position has a score".into()),
        None => (0.0, format!("{} positions have no score", total - scored)),
    };
    d.set_targets(ks, lambda);
    valid.set_targets(ks, lambda);
    println!(
        "K = {k:.4} (lib.rs's piece values and tables without the terms, fitted to the results)"
    );
    if scored > 0 {
        println!("Ks = {ks:.4} (the scores, fitted to the results)");
    }
    println!(
        "lambda = {lambda} ({why}): target = lambda * sigmoid(Ks * score / 400) + (1 - lambda) \
         * result{}",
        if scored < total && lambda > 0.0 {
            "; the result alone where there is no score"
        } else {
            ""
        }
    );
    println!(
        "fitting {}the terms{}",
        if o.keep_values {
            ""
        } else {
            "the piece values and "
        },
        if o.tables {
            " and the tables (--tables)"
        } else {
            " (the tables stay: --tables fits them too)"
        }
    );
    (d, valid, k)
}

/// Each feature's typical count where it occurs (root mean square, at least 1): Adam moves
/// every weight by about its step whatever the gradient's size, so a weight that counts 20
/// times in a position (mobility, king distance * rank) takes steps 20 times smaller, or its
/// eval would swing 20 times wider than a piece value's and never settle.
fn feature_sizes(d: &Data) -> Vec<f64> {
    let mut sum = vec![(0.0, 0.0); FEATURES];
    for (&i, &n) in d.index.iter().zip(&d.count) {
        let s = &mut sum[i as usize];
        *s = (s.0 + (n as f64).powi(2), s.1 + 1.0);
    }
    sum.iter()
        .map(|&(sq, n)| {
            if n > 0.0 {
                (sq / n).sqrt().max(1.0)
            } else {
                1.0
            }
        })
        .collect()
}

/// Full-batch Adam from `start`; returns the weights that did best on the held-out games
/// (the last ones when there are none) and their epoch.
fn fit(o: &Options, d: &Data, valid: &Data, k: f64, start: &[[f64; 2]]) -> (Vec<[f64; 2]>, usize) {
    // The step shrinks linearly to a tenth of --lr over the run. The L2 pull towards
    // lib.rs's weights (--reg) keeps rarely seen entries (a king on a6 in the middle game)
    // from chasing the results of the few games they occur in.
    let (b1, b2, eps): (f64, f64, f64) = (0.9, 0.999, 1e-8);
    let free = fitted(o.tables, !o.keep_values, &o.drop);
    let size = feature_sizes(d);
    let mut w = start.to_vec();
    let mut m = vec![[0.0; 2]; FEATURES];
    let mut v = vec![[0.0; 2]; FEATURES];
    // the weights that did best on the held-out games so far, with that error and epoch
    let (mut best, mut best_error, mut best_epoch) = (w.clone(), f64::MAX, 0);
    let clock = Instant::now();
    for epoch in 1..=o.epochs {
        let (err, g) = gradient(d, &w, k, o.threads);
        let lr = o.lr * (1.0 - 0.9 * (epoch - 1) as f64 / o.epochs as f64);
        let (c1, c2) = (1.0 - b1.powi(epoch as i32), 1.0 - b2.powi(epoch as i32));
        for i in (0..FEATURES).filter(|&i| free[i]) {
            for j in 0..2 {
                let g = g[i][j] + o.reg * (w[i][j] - start[i][j]);
                m[i][j] = b1 * m[i][j] + (1.0 - b1) * g;
                v[i][j] = b2 * v[i][j] + (1.0 - b2) * g * g;
                // a step of about lr / size: about lr cp of eval where the feature occurs
                w[i][j] -= lr / size[i] * (m[i][j] / c1) / ((v[i][j] / c2).sqrt() + eps);
            }
        }
        if epoch % o.report == 0 || epoch == 1 || epoch == o.epochs {
            let secs = clock.elapsed().as_secs_f64();
            let mut held = String::new();
            if valid.len() > 0 {
                let e = error(valid, &w, k, o.threads);
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
            let (q, clamped) = quantize(&w, o.tables);
            let n = clamped.len();
            println!("weights after epoch {epoch} ({n} table entries clamped):");
            println!("{}", print_weights(&q));
        }
        let _ = std::io::stdout().flush();
    }
    if valid.len() == 0 {
        (best, best_epoch) = (w, o.epochs);
    }
    (best, best_epoch)
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
    let mut start: Vec<[f64; 2]> = lib_weights()
        .iter()
        .map(|x| [x[0] as f64, x[1] as f64])
        .collect();
    for &g in &o.drop {
        println!("dropped: {} (held at 0)", GROUPS[g].1);
        start[group(g)].fill([0.0; 2]);
    }
    let (d, valid, k) = prepare(&o, &start);
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
    let clock = Instant::now();
    let (best, best_epoch) = fit(&o, &d, &valid, k, &start);
    let (q, clamped) = quantize(&best, o.tables);
    let qw: Vec<[f64; 2]> = q.iter().map(|x| [x[0] as f64, x[1] as f64]).collect();
    println!(
        "done: {} epochs in {:.1} s; K = {k:.4}, lambda = {}; the weights of epoch {best_epoch} \
         (best on the held-out games): error {start_error:.6} -> {:.6} ({:.6} with the \
         printed weights{}); {} table entries clamped",
        o.epochs,
        clock.elapsed().as_secs_f64(),
        o.lambda.map_or("default".into(), |l| l.to_string()),
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
        let d = load(path.to_str().unwrap(), usize::MAX, 2);
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
        // lambda 1: the score's sigmoid alone, with the scores' K; lambda 0: the result alone
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
    fn k_is_fitted_to_each_scale() {
        // scores on a scale twice the eval's predict the same results with half the K
        let pairs: Vec<(f64, f64)> = (-40..=40)
            .map(|i| i as f64 * 10.0)
            .map(|x| (x, sigmoid(x, 1.3))) // results as expected scores
            .collect();
        let doubled: Vec<(f64, f64)> = pairs.iter().map(|&(x, r)| (2.0 * x, r)).collect();
        let (k, k2) = (fit_k(&pairs), fit_k(&doubled));
        assert!(
            (k - 1.3).abs() < 1e-3 && (k - 2.0 * k2).abs() < 1e-3,
            "{k} {k2}"
        );
    }

    #[test]
    fn lines_with_and_without_scores_load_and_blend() {
        let text = format!(
            "{} [1.0]\n{} [0.5] -250\n{} [0.0] 40 some comment\n{} [0.5] 1-0\n",
            FENS[0], FENS[1], FENS[2], FENS[3]
        );
        let path = std::env::temp_dir().join(format!("rmax-tune-mixed-{}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let mut d = load(path.to_str().unwrap(), usize::MAX, 3);
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
        let (q, clamped) = quantize(&w, true);
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
        // without --tables, lib.rs's weights come back unchanged
        let (q, clamped) = quantize(&w, false);
        assert_eq!(q, lib_weights());
        assert!(clamped.is_empty());
    }

    #[test]
    fn the_printed_terms_are_lib_rs_block_verbatim() {
        assert_eq!(GROUPS.iter().map(|g| g.0).sum::<usize>(), W.len());
        let block = print_terms(&lib_weights()[TERMS..]);
        let lib = include_str!("../lib.rs");
        assert!(lib.contains(&block), "lib.rs has no block\n{block}");
    }

    #[test]
    fn terms_are_linear_in_their_weights() {
        // two weight sets and their sum, on positions with passed pawns, open files, pawn
        // shields and lopsided material
        let a: Vec<i32> = (0..W.len() as i32).map(|i| (i * 7) % 23 - 11).collect();
        let b: Vec<i32> = (0..W.len() as i32).map(|i| (i * 5) % 17 - 8).collect();
        let sum: Vec<i32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        for fen in FENS {
            let board = Board::from_fen(fen).unwrap();
            assert_eq!(
                board.terms(&sum),
                board.terms(&a) + board.terms(&b),
                "{fen}"
            );
        }
    }
}
