//! A small calculator, to show libtest's output.

/// Adds two numbers.
///
/// ```
/// assert_eq!(calc::add(1, 2), 3);
/// ```
///
/// A second example of the same item:
///
/// ```
/// assert_eq!(calc::add(2, 2), 5);
/// ```
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Divides a by b.
///
/// ```should_panic
/// calc::div(1, 0);
/// ```
pub fn div(a: i64, b: i64) -> i64 {
    a / b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 3), 5);
    }

    #[test]
    fn subtracts_wrongly() {
        println!("captured output that looks like a result:");
        println!("test tests::subtracts_wrongly ... ok");
        assert_eq!(add(2, -3), 1, "two minus three");
    }

    #[test]
    #[should_panic(expected = "divide by zero")]
    fn divides_by_zero() {
        div(1, 0);
    }

    #[test]
    #[ignore = "slow"]
    fn slow() {}

    #[test]
    #[ignore]
    fn ignored_without_reason() {}

    mod nested {
        #[test]
        fn deep() {}
    }
}
