//! The search's tunable constants: `c!(v)` in lib.rs, in a tune build `v` + `rmax::TUNE[v]` (UCI).

/// A tunable constant: its UCI option's name, lib.rs's value, its range, SPSA's last step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    pub c_end: f64,
}

const fn p(name: &'static str, default: i32, min: i32, max: i32, c_end: f64) -> Param {
    Param {
        name,
        default,
        min,
        max,
        c_end,
    }
}

/// The tunable constants, each default unique: `c!(v)` is the entry whose default is `v`.
pub const PARAMS: [Param; 15] = [
    p("RfpMargin", 71, 20, 200, 8.0), // reverse futility: cp per ply of depth
    p("RfpDepth", 8, 3, 14, 0.6),     // reverse futility below this depth
    p("RazorMargin", 238, 50, 600, 20.0), // razoring: cp per ply below alpha
    p("NmpBase", 4, 2, 7, 0.5),       // null move: the least reduction
    p("NmpDepthDiv", 5, 2, 12, 0.6),  // null move: a ply more per this much depth
    p("NmpEvalDiv", 196, 50, 600, 20.0), // null move: a ply more per this much above beta
    p("LmrDivPv", 200, 100, 400, 12.0), // late-move reductions in PV nodes, x 0.01
    p("LmrDiv", 150, 75, 300, 10.0),  // late-move reductions elsewhere, x 0.01
    p("LmrHistoryDiv", 256, 64, 1024, 40.0), // a ply less reduction per this much history
    p("AspWindow", 25, 8, 80, 3.0),   // aspiration: half-window at a score of 0
    p("AspWidenDiv", 16384, 2048, 65536, 2000.0), // aspiration: g^2 / this added to the window
    p("HistoryMax", 512, 128, 2048, 40.0), // the histories' bound (their gravity)
    p("CorrWeightMax", 64, 16, 256, 6.0), // correction update: the deepest weight / 512
    p("FutilityBase", 50, 0, 200, 8.0), // futility and delta pruning: the margin at d 0
    p("FutilityPerDepth", 100, 40, 250, 8.0), // futility: the margin per ply
];

/// The PARAMS entry named `name`, in any case.
pub fn param(name: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.name.eq_ignore_ascii_case(name))
}

/// Sets the constant `name` (a tune build's UCI option) within its range.
#[cfg(feature = "tune")]
pub fn set(name: &str, value: i64) -> Result<(), String> {
    use std::sync::atomic::Ordering::Relaxed;
    let p = param(name).ok_or(format!("unknown option '{name}'"))?;
    if !(i64::from(p.min)..=i64::from(p.max)).contains(&value) {
        let (name, min, max) = (p.name, p.min, p.max);
        return Err(format!("{name} takes {min} to {max}, not {value}"));
    }
    rmax::TUNE[p.default as usize].store(value as i32 - p.default, Relaxed);
    Ok(())
}
