# tensorcode: input a=int32:-10:10 x=float64:-2:2
def docstring_and_annotations(a: int, x: float) -> float:
    """Docstrings and int/float annotations are accepted and ignored."""
    y: float = a * x
    return y
