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
}
