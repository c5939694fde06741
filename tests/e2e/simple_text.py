"""Writes the small generated English of the time-limit tests into DIR: text.txt (400
documents of 1-6 sentences "the cat sees the red ball in the morning .", a blank line
after each) and, in SST-2's layout, train.tsv (64 rows) and dev.tsv (32): label 1 iff the
sentence mentions the dog.

  simple_text.py DIR"""
import random
import sys

d = sys.argv[1]
r = random.Random(1)
subj = "the cat|a dog|my sister|the old farmer|our teacher|the small bird|his friend".split("|")
verb = "sees|likes|finds|carries|paints|follows|remembers".split("|")
obj = "the red ball|a green hat|the long road|an open door|the quiet river|a heavy box".split("|")
tail = "in the morning|after dinner|near the house|with great care|every day|at night".split("|")


def sent():
    return "%s %s %s %s ." % (r.choice(subj), r.choice(verb), r.choice(obj), r.choice(tail))


with open(d + "/text.txt", "w") as f:
    for _ in range(400):
        for _ in range(r.randint(1, 6)):
            f.write(sent() + "\n")
        f.write("\n")
for name, n in (("train", 64), ("dev", 32)):
    with open("%s/%s.tsv" % (d, name), "w") as f:
        f.write("sentence\tlabel\n")
        for i in range(n):
            s = sent()
            while ("dog" in s) != (i % 2 == 1):
                s = sent()
            f.write("%s\t%d\n" % (s, i % 2))
