//! The strength tools, each a command of rmax (README): `datagen` (labelled by a `teacher`), `tune`
//! (over lib.rs's `features`), `spsa` (the search's `params`), `calibrate`; `command` runs them.

pub mod calibrate;
pub mod command;
pub mod datagen;
pub mod features;
pub mod params;
pub mod spsa;
pub mod teacher;
pub mod tune;
