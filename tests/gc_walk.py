"""What the cyclic garbage collector walks to reach everything an object holds."""

import gc


def tracked_reachable(root) -> int:
    """How many GC-tracked objects are reachable from `root` (classes, and what they lead to, left out)."""
    seen, todo = set(), [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or not gc.is_tracked(obj) or isinstance(obj, type):
            continue
        seen.add(id(obj))
        todo.extend(gc.get_referents(obj))
    return len(seen)
