#[test]
fn other_passes() {}
