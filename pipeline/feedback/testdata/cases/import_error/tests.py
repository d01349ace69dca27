assert average([1, 2, 3]) == 2.0
