pub use rmax::tuning::datagen::run;
