fn main() {
    rmax::tuning::tune::main()
}
