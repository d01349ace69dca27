use once_cell::sync::Lazy;

static OFFSET: Lazy<i64> = Lazy::new(|| 0);

pub fn add(a: i64, b: i64) -> i64 {
    a + b + *OFFSET
}

pub fn sub(a: i64, b: i64) -> i64 {
    a + b // the bug the failing test shows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 3), 5);
    }

    #[test]
    fn subtracts() {
        assert_eq!(sub(5, 3), 2);
    }
}
