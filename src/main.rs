fn main() {
    eprintln!("rudder: the campaign is not wired up yet");
    std::process::exit(2);
}
