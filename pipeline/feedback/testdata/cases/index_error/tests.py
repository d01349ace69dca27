assert last_two([1, 2, 3]) == [3, 2]
