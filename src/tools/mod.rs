//! The strength tools, each a command of rmax (README): `datagen` (labelled by a `teacher`), `tune`
//! (over `crate::features`), `spsa` (the search's `crate::params`), `calibrate`, `ab` (a build
//! against another); `command` runs them, `source` reads lib.rs as the size test counts it. They
//! use the interface's modules; none of those uses them.

pub mod ab;
pub mod calibrate;
pub mod command;
pub mod datagen;
pub mod source;
pub mod spsa;
pub mod teacher;
pub mod tune;
