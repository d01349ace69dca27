def similar_elements(test_tup1, test_tup2):
    return tuple(set(test_tup1) | set(test_tup2))

if __name__ == "__main__":
    print(similar_elements((3, 4, 5, 6), (5, 7, 4, 10)))
