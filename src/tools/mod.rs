//! The tools for strength work, each a command of rmax (README: Tuning the evaluation, Strength
//! levels, Tuning the search): `datagen` (self-play positions, labelled by a `teacher`), `tune`
//! (the evaluation's weights fitted to them, over the `features` of lib.rs's evaluation), `spsa`
//! (the search's constants, `params`, tuned by games), `calibrate` (a strength level's row).
//! `command` reads their command lines and runs the programs they drive. They build on the
//! engine's public API and on the game and text code the terminal uses; no front end needs them
//! but for `datagen`, `eval`'s features and a tune build's options.

pub mod calibrate;
pub mod command;
pub mod datagen;
pub mod features;
pub mod params;
pub mod spsa;
pub mod teacher;
pub mod tune;
