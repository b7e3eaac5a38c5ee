# Writes a JSON document of about N megabytes (argv[2]) to argv[1]: an array of varied records
# (nested objects, strings with escapes and non-ASCII, numbers, literals), deterministic.
import json, random, sys
path, megabytes = sys.argv[1], int(sys.argv[2])
rnd = random.Random(5)
words = ["alpha", "beta", "gamma", "δέλτα", "epsilon", "quote\"d", "tab\tbed", "slash/", "emoji 😀", "zeta"]
target = megabytes * 1_000_000
with open(path, "w", encoding="utf-8") as f:
    f.write("[")
    size, i = 1, 0
    while size < target:
        rec = {
            "id": i, "name": " ".join(rnd.choice(words) for _ in range(3)),
            "score": round(rnd.uniform(-1e6, 1e6), 4), "active": rnd.random() < 0.5, "parent": None,
            "tags": [rnd.choice(words) for _ in range(rnd.randint(0, 4))],
            "geo": {"lat": rnd.uniform(-90, 90), "lon": rnd.uniform(-180, 180), "alt": rnd.randint(0, 9000)},
            "history": [{"t": 1700000000 + j, "v": rnd.randint(0, 999)} for j in range(rnd.randint(0, 3))],
        }
        s = ("," if i else "") + json.dumps(rec, ensure_ascii=rnd.random() < 0.3)
        f.write(s)
        size += len(s.encode())
        i += 1
    f.write("]\n")
