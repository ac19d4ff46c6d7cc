//! The search's tunable constants: `c!(v)` in src/lib.rs and `rmax::tuning::PARAMS` agree,
//! and only a tune build offers them as UCI options.

mod common;

use rmax::tuning::{index, PARAMS};
use std::fs;

/// The values `v` of every `c!(v)` in `src`, in order.
fn marked(src: &str) -> Vec<i32> {
    src.split("c!(")
        .skip(1)
        .filter_map(|rest| rest.split(')').next()?.trim().parse().ok())
        .collect()
}

#[test]
fn every_marked_constant_has_its_entry_and_every_entry_a_mark() {
    let lib = fs::read_to_string("src/lib.rs").expect("src/lib.rs");
    // (a constant may stand in more than one place: the same value, one entry)
    let mut values = marked(&lib);
    values.sort_unstable();
    values.dedup();
    let mut defaults: Vec<i32> = PARAMS.iter().map(|p| p.default).collect();
    defaults.sort_unstable();
    assert_eq!(values, defaults, "lib.rs's c!(v) against PARAMS' defaults");
    defaults.dedup();
    assert_eq!(defaults.len(), PARAMS.len(), "two constants share a value");
}

#[test]
fn each_entry_is_found_by_its_value_and_fits_its_range() {
    for (i, p) in PARAMS.iter().enumerate() {
        assert_eq!(index(p.default), i, "{}", p.name);
        assert!(p.min <= p.default && p.default <= p.max, "{p:?}");
        assert!(p.c_end > 0.0 && p.c_end < f64::from(p.max - p.min), "{p:?}");
    }
    let mut names: Vec<_> = PARAMS.iter().map(|p| p.name.to_lowercase()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), PARAMS.len(), "two constants share a name");
}

#[test]
fn the_marker_reader_sees_every_form() {
    assert_eq!(marked("a c!(71) * d + c!( 5 ) - x!(3) c!(y)"), [71, 5]);
}

#[test]
fn a_normal_build_offers_no_search_constants() {
    let mut r = common::Rmax::start(&[]);
    r.send("uci");
    let answer = r.expect("uciok\n", 5.0);
    assert!(answer.contains("option name Hash "), "{answer}");
    for p in PARAMS {
        assert!(
            !answer.contains(&format!("option name {} ", p.name)),
            "{answer}"
        );
    }
    r.send(&format!(
        "setoption name {} value {}",
        PARAMS[0].name, PARAMS[0].default
    ));
    r.send("isready");
    let reply = r.expect("readyok\n", 5.0);
    assert!(reply.contains("unknown option"), "{reply}");
}
