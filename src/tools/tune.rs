//! `rmax tune`: the Texel tuner of the evaluation (README), over `features.rs`' model.

use super::command::{number, Args};
use crate::features::{
    lib_weights, line, Position, FEATURES, FULL_PHASE, MATERIAL, PST, TERMS, W_LINES,
};
use rmax::{Board, W};
use std::io::Write;
use std::ops::Range;
use std::time::Instant;

pub const USAGE: &str =
    "usage: rmax tune FILE [--lambda L] [--tables] [--keep-values] [--drop G,G|all] \
    [--epochs N] [--lr X] [--reg X] [--holdout PERCENT] [--limit N] [--threads T] [--report N] \
    [--dump N]\n       rmax tune --check FILE [--perturb]";

/// The weight on the scores when every position has one and --lambda is not given (else 0).
pub const LAMBDA_ALL_SCORED: f64 = 0.5;

/// A position to fit: the game's result, the search's score (White's view) and the target.
pub struct Sample {
    pub position: Position,
    pub result: f32,
    pub score: Option<f32>,
    pub target: f32,
}

impl Sample {
    /// The eval (White's view, unrounded) and its derivatives by a feature's mg and eg weight.
    pub fn eval(&self, w: &[[f64; 2]]) -> (f64, [f64; 2]) {
        let (mut mg, mut eg) = (0.0, 0.0);
        for &(i, n) in &self.position.features {
            mg += w[i as usize][0] * n as f64;
            eg += w[i as usize][1] * n as f64;
        }
        let ph = self.position.phase as f64 / FULL_PHASE as f64;
        let eg_share = (1.0 - ph) * self.position.scale(mg, eg).1 as f64 / 128.0;
        (mg * ph + eg * eg_share, [ph, eg_share])
    }
}

pub struct Options {
    pub file: String,
    pub epochs: usize,
    pub lr: f64,
    pub reg: f64,
    pub holdout: usize,
    pub limit: usize,
    pub threads: usize,
    pub report: usize,
    pub dump: usize,
    pub lambda: Option<f64>,
    pub tables: bool,
    pub keep_values: bool,
    /// Lines of `W_LINES` held at 0.
    pub drop: Vec<usize>,
}

pub fn fail(msg: &str) -> ! {
    eprintln!("rmax tune: {msg}");
    std::process::exit(2)
}

pub fn options(args: &[String]) -> Result<Options, String> {
    let valued = "--lambda --drop --epochs --lr --reg --holdout --limit --threads --report --dump";
    let valued: Vec<&str> = valued.split(' ').collect();
    let a = Args::read(args, &valued, &["--tables", "--keep-values"])?;
    let [file] = &a.words[..] else {
        return Err(USAGE.into());
    };
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let lines = W_LINES.len();
    let group = |g| number("--drop (a line of W)", g, 0, lines - 1);
    let drop = match a.get("--drop") {
        None => vec![],
        Some("all") => (0..lines).collect(),
        Some(list) => list.split(',').map(group).collect::<Result<_, _>>()?,
    };
    let lambda = a.get("--lambda").map(|x| number("--lambda", x, 0.0, 1.0));
    Ok(Options {
        file: file.clone(),
        epochs: a.number("--epochs", 1000, 1, 1 << 30)?,
        lr: a.number("--lr", 1.0, 0.0, 1e9)?,
        reg: a.number("--reg", 3e-7, 0.0, 1e9)?,
        holdout: a.number("--holdout", 10, 0, 90)?,
        limit: a.number("--limit", usize::MAX, 1, usize::MAX)?,
        threads: a.number("--threads", cores, 1, 256)?,
        report: a.number("--report", 10, 1, usize::MAX)?,
        dump: a.number("--dump", 250, 1, usize::MAX)?,
        lambda: lambda.transpose()?,
        tables: a.has("--tables"),
        keep_values: a.has("--keep-values"),
        drop,
    })
}

/// The lines of `path` that hold positions (blank lines and `#` comments skipped).
pub fn read_lines(path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let lines = text.lines().map(str::trim);
    let positions = lines.filter(|l| !l.is_empty() && !l.starts_with('#'));
    positions.map(String::from).collect()
}

/// The FEN at the start of `line` (4 fields and the move counters) and the words after it.
pub fn split_fen(line: &str) -> (String, Vec<&str>) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut n = words.len().min(4);
    while n < words.len().min(6) && words[n].parse::<u32>().is_ok() {
        n += 1;
    }
    (words[..n].join(" "), words[n..].to_vec())
}

/// A game result from White's view: `[1.0]`, `[0.5]`, `[0.0]` (also `1-0`, `1/2-1/2`, `0-1`).
pub fn result(word: &str) -> Option<f32> {
    match word.trim_matches(|c| "[]\";".contains(c)) {
        "1.0" | "1" | "1-0" => Some(1.0),
        "0.5" | "1/2-1/2" => Some(0.5),
        "0.0" | "0" | "0-1" => Some(0.0),
        _ => None,
    }
}

/// A data line's position, result and score (the number after the result, if any).
pub fn sample(line: &str) -> Option<Sample> {
    let (fen, rest) = split_fen(line);
    let at = rest.iter().position(|w| result(w).is_some())?;
    let board = Board::from_fen(&fen).ok()?;
    let score = rest.get(at + 1).and_then(|w| w.parse::<f32>().ok());
    Some(Sample {
        position: Position::of(&board),
        result: result(rest[at])?,
        score: score.filter(|s| s.is_finite()),
        target: result(rest[at])?,
    })
}

/// `--check`: the model against `Board::eval` on every FEN of `path`; `perturb`: pawns +10 cp.
pub fn check(path: &str, perturb: bool) {
    let mut w = lib_weights();
    if perturb {
        w[MATERIAL] = w[MATERIAL].map(|x| x + 10);
    }
    let (mut checked, mut mismatches) = (0, 0);
    for line in read_lines(path) {
        let fen = split_fen(&line).0;
        let b = Board::from_fen(&fen).unwrap_or_else(|e| fail(&format!("bad FEN '{fen}': {e}")));
        let lib = if b.side == 8 { b.eval() } else { -b.eval() };
        let model = Position::of(&b).eval(&w);
        checked += 1;
        if model != lib || b.terms(&[0; W.len()]) != 0 {
            mismatches += 1;
            if mismatches <= 5 {
                say!("mismatch: {fen}: tuner {model}, Board::eval {lib} (White's view)");
            }
        }
    }
    say!("{checked} positions checked, {mismatches} mismatches");
    if mismatches > 0 || checked == 0 {
        std::process::exit(1);
    }
}

/// Splits `0..n` into `threads` ranges and folds `f(range)` over them in parallel, in order.
pub fn parallel<T: Send>(
    n: usize,
    threads: usize,
    f: impl Fn(Range<usize>) -> T + Sync,
    sum: impl Fn(T, T) -> T,
) -> T {
    let chunk = n.div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let f = &f;
        let spawn = |a| s.spawn(move || f(a..(a + chunk).min(n)));
        let parts: Vec<_> = (0..n).step_by(chunk).map(spawn).collect();
        let mut parts = parts.into_iter().map(|h| h.join().expect("a worker"));
        let first = parts.next().unwrap_or_else(|| f(0..0));
        parts.fold(first, sum)
    })
}

/// The positions of `path` (at most `limit`), read in parallel; bad lines skipped, and said.
pub fn load(path: &str, limit: usize, threads: usize) -> Vec<Sample> {
    let lines: Vec<String> = read_lines(path).into_iter().take(limit).collect();
    let read =
        |r: Range<usize>| -> Vec<_> { lines[r].iter().map(|l| sample(l).ok_or(l)).collect() };
    let both = |a: Vec<_>, b: Vec<_>| a.into_iter().chain(b).collect::<Vec<_>>();
    let all = parallel(lines.len(), threads, read, both);
    let (good, skipped): (Vec<_>, Vec<_>) = all.into_iter().partition(Result::is_ok);
    for line in skipped.iter().filter_map(|s| s.as_ref().err()).take(5) {
        eprintln!("rmax tune: skipped (no FEN and result): {line}");
    }
    if !skipped.is_empty() {
        eprintln!("rmax tune: {} lines skipped", skipped.len());
    }
    good.into_iter().filter_map(Result::ok).collect()
}

/// sigmoid(K * eval / 400), K scaled so that 400 cp at K = 1 is 10 to 1 odds.
pub fn sigmoid(eval: f64, k: f64) -> f64 {
    1.0 / (1.0 + (-k * eval * std::f64::consts::LN_10 / 400.0).exp())
}

/// Each target: `lambda * sigmoid(K * score / 400) + (1 - lambda) * result` (or the result).
pub fn set_targets(data: &mut [Sample], k: f64, lambda: f64) {
    for s in data {
        let blend = |x: f32| lambda * sigmoid(x.into(), k) + (1.0 - lambda) * f64::from(s.result);
        s.target = s.score.map_or(s.result, |x| blend(x) as f32);
    }
}

/// The mean squared error of the weights with the eval's K, and its gradient by each weight.
pub fn gradient(d: &[Sample], w: &[[f64; 2]], k: f64, threads: usize) -> (f64, Vec<[f64; 2]>) {
    let slope = k * std::f64::consts::LN_10 / 400.0;
    let part = |range: Range<usize>| {
        let (mut error, mut g) = (0.0, vec![[0.0; 2]; FEATURES]);
        for s in &d[range] {
            let (eval, share) = s.eval(w);
            let p = sigmoid(eval, k);
            let diff = p - s.target as f64;
            error += diff * diff;
            let de = 2.0 * diff * p * (1.0 - p) * slope;
            for &(i, n) in &s.position.features {
                let x = &mut g[i as usize];
                x[0] += de * share[0] * n as f64;
                x[1] += de * share[1] * n as f64;
            }
        }
        (error, g)
    };
    let (error, mut g) = parallel(d.len(), threads, part, |(e1, mut g1), (e2, g2)| {
        for (a, b) in g1.iter_mut().zip(&g2) {
            *a = [a[0] + b[0], a[1] + b[1]];
        }
        (e1 + e2, g1)
    });
    let n = d.len().max(1) as f64;
    g.iter_mut().for_each(|x| *x = x.map(|v| v / n));
    (error / n, g)
}

/// The K with which sigmoid(K * x / 400) predicts (x, result) pairs best (golden section).
pub fn fit_k(pairs: &[(f64, f64)]) -> f64 {
    let miss = |&(x, r): &(f64, f64), k| (r - sigmoid(x, k)).powi(2);
    let err = |k| pairs.iter().map(|pair| miss(pair, k)).sum::<f64>();
    let (mut a, mut b, r) = (0.05, 4.0, (5f64.sqrt() - 1.0) / 2.0);
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

/// The weights as lib.rs holds them, and the table entries clamped (`N mg a8 -172`: from the mean).
pub fn quantize(w: &[[f64; 2]], tables: bool) -> (Vec<[i32; 2]>, Vec<String>) {
    let (mut q, mut clamped) = (lib_weights(), vec![]);
    for kind in 0..6 {
        // pawns never stand on ranks 1 and 8: those entries stay 0
        let squares: Vec<usize> = (0..64)
            .filter(|&sq| kind > 0 || (8..56).contains(&sq))
            .collect();
        for eg in 0..2 {
            let entry = |sq: usize| w[PST + kind * 64 + sq][eg];
            let mean = match tables {
                true => squares.iter().map(|&sq| entry(sq)).sum::<f64>() / squares.len() as f64,
                false => 0.0,
            };
            let value = (w[MATERIAL + kind][eg] + mean).round() as i32;
            q[MATERIAL + kind][eg] = if kind == 5 { 0 } else { value };
            for &sq in squares.iter().filter(|_| tables) {
                // 4 cp a character from '#' (35) to '~' (126), never '"': it ends lib.rs's string
                let steps = ((entry(sq) - mean) / 4.0).round() as i32;
                let kept = steps.clamp(35 - 77, 126 - 77);
                if kept != steps {
                    let square = format!("{}{}", (b'a' + sq as u8 % 8) as char, 8 - sq / 8);
                    let what = format!("{} {}", &"PNBRQK"[kind..=kind], ["mg", "eg"][eg]);
                    clamped.push(format!("{what} {square} {:+}", steps * 4));
                }
                q[PST + kind * 64 + sq][eg] = kept * 4;
            }
        }
    }
    for i in TERMS..FEATURES {
        q[i] = w[i].map(|x| x.round().clamp(-32000.0, 32000.0) as i32); // two i16 halves
    }
    (q, clamped)
}

/// The weights as lib.rs's `VALUE`, `TABLES` and `W`, the last line by line as lib.rs has it.
pub fn print_weights(q: &[[i32; 2]]) -> String {
    let value = |i: usize| q[MATERIAL + i / 2][i % 2].to_string();
    let values: Vec<String> = (0..12).map(value).collect();
    let entry = |i: usize| ((q[PST + i / 128 * 64 + i % 64][i / 64 % 2] + 308) / 4) as u8 as char;
    let tables: String = (0..768).map(entry).collect();
    let (values, terms) = (values.join(", "), W.len());
    let mut text = format!(
        "pub const VALUE: [i32; 12] = [{values}];\npub const TABLES: &str = r\"{tables}\";\n\
         pub const W: [i32; {terms}] = [\n"
    );
    for (l, (_, comment, _)) in W_LINES.iter().enumerate() {
        let weight = |i: usize| format!("s({}, {}),", q[i][0], q[i][1]);
        let weights: Vec<String> = line(l).map(weight).collect();
        text += &format!("    {} // {comment}\n", weights.join(" "));
    }
    text + "];"
}

pub fn main(args: &[String]) {
    match args {
        [flag, file] if flag == "--check" => return check(file, false),
        [flag, file, p] if flag == "--check" && p == "--perturb" => return check(file, true),
        _ => {}
    }
    let o = options(args).unwrap_or_else(|e| fail(&e));
    let mut start: Vec<[f64; 2]> = lib_weights().iter().map(|x| x.map(f64::from)).collect();
    for &l in &o.drop {
        say!("dropped: {} (held at 0)", W_LINES[l].1);
        start[line(l)].fill([0.0; 2]);
    }
    let (d, valid, k) = prepare(&o, &start);
    let error = |d: &[Sample], w: &[[f64; 2]]| gradient(d, w, k, o.threads).0;
    let held = |w: &[[f64; 2]]| {
        let e = (!valid.is_empty()).then(|| error(&valid, w));
        e.map_or(String::new(), |e| format!(", held out {e:.6}"))
    };
    let start_error = error(&d, &start);
    say!("lib.rs's weights: error {start_error:.6}{}", held(&start));
    let clock = Instant::now();
    let (best, best_epoch) = fit(&o, &d, &valid, k, &start);
    let (q, clamped) = quantize(&best, o.tables);
    let printed: Vec<[f64; 2]> = q.iter().map(|x| x.map(f64::from)).collect();
    let (epochs, secs, n) = (o.epochs, clock.elapsed().as_secs_f64(), clamped.len());
    let lambda = o.lambda.map_or("default".into(), |l| l.to_string());
    let (fitted, rounded, held) = (error(&d, &best), error(&d, &printed), held(&printed));
    say!(
        "done: {epochs} epochs in {secs:.1} s; K = {k:.4}, lambda = {lambda}; the weights of epoch \
         {best_epoch} (best on the held-out games): error {start_error:.6} -> {fitted:.6} \
         ({rounded:.6} with the printed weights{held}); {n} table entries clamped"
    );
    if !clamped.is_empty() {
        let clamped = clamped.join(", ");
        say!("clamped (wanted, from the table's mean): {clamped}");
    }
    say!("{}", print_weights(&q));
}

/// The positions to tune on and the held-out ones (the file's last), their targets, and K.
pub fn prepare(o: &Options, start: &[[f64; 2]]) -> (Vec<Sample>, Vec<Sample>, f64) {
    let (clock, mut d) = (Instant::now(), load(&o.file, o.limit, o.threads));
    let mut valid = d.split_off(d.len() - d.len() * o.holdout / 100);
    if d.is_empty() {
        fail(&format!("{}: no positions to tune on", o.file));
    }
    let (tuned, held, secs) = (d.len(), valid.len(), clock.elapsed().as_secs_f64());
    let features = d.iter().map(|s| s.position.features.len()).sum::<usize>();
    let (total, features) = (tuned + held, features as f64 / tuned as f64);
    let scored = d.iter().chain(&valid).filter(|s| s.score.is_some()).count();
    say!(
        "{total} positions ({tuned} to tune on, {held} held out), {scored} with a score, \
         {features:.1} features a position, loaded in {secs:.1} s"
    );
    let (k, ks) = fit_ks(&d, start);
    let (lambda, why) = match o.lambda {
        Some(lambda) => (lambda, "--lambda".to_string()),
        None if scored == total => (LAMBDA_ALL_SCORED, "every position has a score".into()),
        None => (0.0, format!("{} positions have no score", total - scored)),
    };
    set_targets(&mut d, ks, lambda);
    set_targets(&mut valid, ks, lambda);
    say!("K = {k:.4} (lib.rs's piece values and tables without the terms, fitted to the results)");
    if scored > 0 {
        say!("Ks = {ks:.4} (the scores, fitted to the results)");
    }
    let alone = ["", "; the result alone where there is no score"]
        [(scored < total && lambda > 0.0) as usize];
    say!(
        "lambda = {lambda} ({why}): target = lambda * sigmoid(Ks * score / 400) + (1 - lambda) \
         * result{alone}"
    );
    let values = ["the piece values and ", ""][o.keep_values as usize];
    let tables = [
        " (the tables stay: --tables fits them too)",
        " and the tables (--tables)",
    ];
    say!("fitting {values}the terms{}", tables[o.tables as usize]);
    (d, valid, k)
}

/// K (of PeSTO's eval: lib.rs's without the terms) and Ks (of the scores), fitted to results.
pub fn fit_ks(d: &[Sample], start: &[[f64; 2]]) -> (f64, f64) {
    let mut pesto = start.to_vec();
    pesto[TERMS..].fill([0.0; 2]);
    let eval = |s: &Sample| (s.eval(&pesto).0, s.result.into());
    let evals: Vec<(f64, f64)> = d.iter().map(eval).collect();
    let score = |s: &Sample| Some((s.score? as f64, s.result as f64));
    let scores: Vec<(f64, f64)> = d.iter().filter_map(score).collect();
    let ks = (!scores.is_empty()).then(|| fit_k(&scores));
    (fit_k(&evals), ks.unwrap_or(1.0))
}

/// The weights fitted, and the epoch they are of.
pub type Fitted = (Vec<[f64; 2]>, usize);

/// Full-batch Adam from `start`, pulled to lib.rs's by --reg: the best weights on held-out games.
pub fn fit(o: &Options, d: &[Sample], valid: &[Sample], k: f64, start: &[[f64; 2]]) -> Fitted {
    let (b1, b2, eps): (f64, f64, f64) = (0.9, 0.999, 1e-8);
    // the weights `o` lets move
    let free = |i: &usize| {
        let dropped = o.drop.iter().any(|&l| line(l).contains(i));
        (o.tables || !(PST..TERMS).contains(i)) && (!o.keep_values || *i >= PST) && !dropped
    };
    // each feature's typical count (root mean square, at least 1): Adam's step is divided by it
    let mut sum = vec![(0.0, 0.0); FEATURES];
    for &(i, n) in d.iter().flat_map(|s| &s.position.features) {
        let s = &mut sum[i as usize];
        *s = (s.0 + (n as f64).powi(2), s.1 + 1.0);
    }
    let size = |&(sq, n): &(f64, f64)| (sq / n.max(1.0)).sqrt().max(1.0);
    let size: Vec<f64> = sum.iter().map(size).collect();
    let (mut w, mut m) = (start.to_vec(), vec![[0.0; 2]; FEATURES]);
    let mut v = m.clone();
    let (mut best, mut best_error, mut best_epoch) = (w.clone(), f64::MAX, o.epochs);
    let clock = Instant::now();
    for epoch in 1..=o.epochs {
        let (err, g) = gradient(d, &w, k, o.threads);
        let lr = o.lr * (1.0 - 0.9 * (epoch - 1) as f64 / o.epochs as f64);
        let (c1, c2) = (1.0 - b1.powi(epoch as i32), 1.0 - b2.powi(epoch as i32));
        for i in (0..FEATURES).filter(free) {
            for j in 0..2 {
                let g = g[i][j] + o.reg * (w[i][j] - start[i][j]);
                m[i][j] = b1 * m[i][j] + (1.0 - b1) * g;
                v[i][j] = b2 * v[i][j] + (1.0 - b2) * g * g;
                w[i][j] -= lr / size[i] * (m[i][j] / c1) / ((v[i][j] / c2).sqrt() + eps);
            }
        }
        if epoch % o.report == 0 || epoch == 1 || epoch == o.epochs {
            let secs = clock.elapsed().as_secs_f64();
            // without held-out games the last epoch's weights are the best
            let e = (!valid.is_empty()).then(|| gradient(valid, &w, k, o.threads).0);
            if e.is_none_or(|e| e < best_error) {
                (best, best_error, best_epoch) = (w.clone(), e.unwrap_or(f64::MAX), epoch);
            }
            let held = e.map_or(String::new(), |e| format!(" held out {e:.6}"));
            let each = secs / epoch as f64;
            say!("epoch {epoch} error {err:.6}{held} time {secs:.1} s ({each:.3} s an epoch)");
        }
        if epoch % o.dump == 0 && epoch < o.epochs {
            let (q, clamped) = quantize(&w, o.tables);
            let (n, weights) = (clamped.len(), print_weights(&q));
            say!("weights after epoch {epoch} ({n} table entries clamped):\n{weights}");
        }
        let _ = std::io::stdout().flush();
    }
    (best, best_epoch)
}
