#[test]
fn integration_adds() {
    assert_eq!(calc::add(40, 2), 42);
}

#[test]
fn integration_fails() {
    let v: Vec<i64> = vec![];
    assert!(!v.is_empty(), "the vector is empty");
}
