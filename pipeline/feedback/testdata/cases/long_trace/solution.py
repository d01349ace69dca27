def walk(tree, depth=0):
    if depth == 40:
        return tree["missing"]
    return walk_child(tree, depth)


def walk_child(tree, depth):
    return walk(tree, depth + 1)
