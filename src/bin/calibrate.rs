fn main() {
    rmax::tuning::calibrate::main()
}
