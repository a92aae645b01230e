# SPDX-License-Identifier: MIT
"""Generator of short stories with known structure, for the bundled demo decoder.

Every story comes with ground truth in character offsets:
  coref      a pronoun and its antecedent (the last mention of the character it refers to)
  agreement  a verb ("is"/"are") and the head noun of its subject, separated by a prepositional phrase
  repeats    two copies of a random word sequence (the second copy can only be predicted by copying: induction)
"""
import json
import random
import sys

GIRLS = ["Lily", "Mia", "Anna", "Sara", "Emma", "Zoe", "Lucy", "Amy"]
BOYS = ["Tom", "Ben", "Max", "Sam", "Leo", "Jack", "Tim", "Bob"]
OBJECTS = ["ball", "kite", "book", "box", "cake", "hat", "car", "doll", "cup", "drum", "star", "shell"]
ADJS = ["red", "big", "small", "blue", "old", "new", "green", "soft", "shiny", "funny"]
PLACES = ["park", "house", "garden", "river", "school", "shop", "forest", "beach"]
FEELINGS = ["happy", "sad", "tired", "proud", "calm", "excited"]
MAGIC = ["moon", "tree", "fish", "rain", "gold", "wind", "bird", "sun", "snow", "frog", "lamp", "rock",
         "milk", "bell", "leaf", "seed", "king", "ship", "hill", "road"]
VERBS_PAST = ["found", "saw", "liked", "had", "made", "wanted"]


class Story:
    """Builds text left to right and records annotated spans as it goes."""

    def __init__(self):
        self.text = ""
        self.coref, self.agreement, self.repeats = [], [], []

    def add(self, s):
        start = len(self.text)
        self.text += s
        return [start, len(self.text)]

    def sentence_break(self):
        self.add(" ")


def pronoun(name, capital=True):
    p = "she" if name in GIRLS else "he"
    return p.capitalize() if capital else p


def make_story(rng):
    st = Story()
    girl, boy = rng.choice(GIRLS), rng.choice(BOYS)
    chars = [girl, boy]
    rng.shuffle(chars)
    place = rng.choice(PLACES)
    last = {}
    last[chars[0]] = st.add(chars[0])
    st.add(" and ")
    last[chars[1]] = st.add(chars[1])
    st.add(f" went to the {place}.")
    for _ in range(rng.randint(2, 4)):
        kind = rng.random()
        st.sentence_break()
        who = rng.choice(chars)
        if kind < 0.45:
            # "<Name> found a red ball. She gave it to <Other>. He was happy."
            obj, adj = rng.choice(OBJECTS), rng.choice(ADJS)
            last[who] = st.add(who)
            article = "an" if adj[0] in "aeiou" else "a"
            st.add(f" {rng.choice(VERBS_PAST)} {article} {adj} {obj}.")
            st.sentence_break()
            p = st.add(pronoun(who))
            st.coref.append({"pronoun": p, "antecedent": last[who]})
            other = chars[1] if who == chars[0] else chars[0]
            st.add(" gave it to ")
            last[other] = st.add(other)
            st.add(".")
            st.sentence_break()
            p = st.add(pronoun(other))
            st.coref.append({"pronoun": p, "antecedent": last[other]})
            st.add(f" was {rng.choice(FEELINGS)}.")
        elif kind < 0.75:
            # "The balls near the old house are shiny." / "The ball near ... is ..."
            obj = rng.choice(OBJECTS)
            plural = rng.random() < 0.5
            st.add("The ")
            subj = st.add(obj + ("s" if plural else ""))
            st.add(f" near the {rng.choice(ADJS)} {rng.choice(PLACES)} ")
            verb = st.add("are" if plural else "is")
            st.add(f" {rng.choice(ADJS)}.")
            st.agreement.append({"verb": verb, "subject": subj})
        else:
            # "Lily said the magic words: moon tree fish rain. ... Then she said again: moon tree fish rain."
            words = " ".join(rng.sample(MAGIC, rng.randint(3, 6)))
            last[who] = st.add(who)
            st.add(" said the magic words: ")
            first = st.add(words)
            st.add(".")
            st.sentence_break()
            st.add("Then ")
            p = st.add(pronoun(who, capital=False))
            st.coref.append({"pronoun": p, "antecedent": last[who]})
            st.add(" said again: ")
            second = st.add(words)
            st.add(".")
            st.repeats.append({"first": first, "second": second})
    st.sentence_break()
    st.add("The end.")
    return {"text": st.text, "coref": st.coref, "agreement": st.agreement, "repeats": st.repeats}


def generate(n, seed):
    rng = random.Random(seed)
    return [make_story(rng) for _ in range(n)]


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    for s in generate(n, seed):
        print(json.dumps(s))
