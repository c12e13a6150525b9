# expect: 4:5 match statements are not supported: test the cases with if/elif/else
# inputs: a=int32:0:3
def f(a):
    match a:
        case 1:
            return 10
        case _:
            return 0
