// DEV HARNESS ONLY - not committed.
use rmax::*;
use std::io::BufRead;
fn main() {
    let mut e = Engine::new(16);
    let mut b = Board::from_fen(START).unwrap();
    let mut hist: Vec<u64> = vec![];
    e.report = Box::new(|i: &Info| {
        let s = if i.score > MATE - 999 {
            format!("mate {}", (MATE - i.score + 1) / 2)
        } else if i.score < 999 - MATE {
            format!("mate {}", -(MATE + i.score) / 2)
        } else {
            format!("cp {}", i.score)
        };
        println!(
            "info depth {} seldepth {} score {} nodes {} time {} pv {}",
            i.depth,
            i.seldepth,
            s,
            i.nodes,
            i.ms,
            i.pv.iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        )
    });
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let t: Vec<&str> = line.split_whitespace().collect();
        match t.first().copied() {
            Some("uci") => println!("id name rmax-dev\nuciok"),
            Some("isready") => println!("readyok"),
            Some("ucinewgame") => e.resize(16),
            Some("position") => {
                let mi = t.iter().position(|&x| x == "moves").unwrap_or(t.len());
                b = if t.get(1) == Some(&"fen") {
                    Board::from_fen(&t[2..mi].join(" ")).unwrap()
                } else {
                    Board::from_fen(START).unwrap()
                };
                hist.clear();
                for m in t.iter().skip(mi + 1) {
                    hist.push(b.key);
                    let mv = b.parse_move(m).unwrap();
                    b.make(mv);
                }
            }
            Some("go") => {
                let get = |k: &str| {
                    t.iter()
                        .position(|&x| x == k)
                        .and_then(|i| t.get(i + 1))
                        .and_then(|v| v.parse::<u64>().ok())
                };
                let mut lim = Limits::default();
                let (tm, inc) = if b.side == 8 {
                    (get("wtime"), get("winc"))
                } else {
                    (get("btime"), get("binc"))
                };
                if let Some(tm) = tm {
                    let avail = tm.saturating_sub(10).max(1);
                    let inc = inc.unwrap_or(0);
                    lim.soft = (avail / 30 + inc * 3 / 4).min(avail / 2).max(1);
                    lim.hard = (lim.soft * 3).min(avail * 3 / 4).max(1);
                }
                if let Some(mt) = get("movetime") {
                    lim.soft = mt.saturating_sub(10).max(1);
                    lim.hard = lim.soft;
                }
                if let Some(d) = get("depth") {
                    lim.depth = d as i32;
                }
                if let Some(n) = get("nodes") {
                    lim.nodes = n;
                }
                e.stop.store(false, std::sync::atomic::Ordering::Relaxed);
                let (m, _) = e.think(&b, &hist, lim);
                println!(
                    "bestmove {}",
                    m.map(|m| m.to_string()).unwrap_or("0000".into())
                );
            }
            Some("bench") => {
                let t0 = std::time::Instant::now();
                let mut n = 0;
                for l in std::fs::read_to_string("/work/shared/data/win_at_chess.epd")
                    .unwrap()
                    .lines()
                    .take(30)
                {
                    let f: Vec<&str> = l.split_whitespace().take(4).collect();
                    let bb = Board::from_fen(&f.join(" ")).unwrap();
                    let mut e2 = Engine::new(16);
                    let d = t.get(1).and_then(|x| x.parse().ok()).unwrap_or(7);
                    let (_, i) = e2.think(
                        &bb,
                        &[],
                        Limits {
                            depth: d,
                            ..Default::default()
                        },
                    );
                    n += i.nodes;
                }
                let ms = t0.elapsed().as_millis().max(1) as u64;
                println!("{} nodes {} nps", n, n * 1000 / ms);
            }
            Some("quit") => break,
            _ => {}
        }
    }
}
