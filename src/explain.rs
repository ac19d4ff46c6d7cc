pub use rmax::tuning::explain::explain;
