fn main() {
    rmax::tuning::spsa::main()
}
