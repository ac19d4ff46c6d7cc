use rmax::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() > 2 && args[1] == "perft" {
        let d: u32 = args[2].parse().unwrap_or(1);
        let b = Board::from_fen(args.get(3).map(|s| s.as_str()).unwrap_or(START)).unwrap();
        let mut total = 0;
        for m in b.gen(false) { let n = if d > 1 { b.after(m).perft(d - 1) } else { 1 }; total += n; println!("{m}: {n}"); }
        println!("Nodes searched: {total}");
    }
    if args.len() > 2 && args[1] == "think" {
        let b = Board::from_fen(&args[2]).unwrap();
        let mut e = Engine::new(16);
        e.report = Box::new(|i: &Info| println!("depth {} sel {} score {} nodes {} ms {} pv {}", i.depth, i.seldepth, i.score, i.nodes, i.ms, i.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ")));
        let lim = Limits { depth: args.get(3).and_then(|s| s.parse().ok()).unwrap_or(8), ..Default::default() };
        let (m, i) = e.think(&b, &[], lim);
        println!("best {:?} {}", m.map(|m| m.to_string()), i.score);
    }
}
