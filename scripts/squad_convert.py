#!/usr/bin/env python3
"""Convert the non-SQuAD layouts of ../shared/data/squad to SQuAD JSON, so
`electra-train finetune --task squad|squad2` can read them; how each
layout converts:

  squad_convert.py qed OUT.json FILE.jsonlines...   QED / Natural Questions
      pre-release train shards: context = paragraph_text, one answer per
      answer_spans [start, end) (character offsets; answer_text is ignored
      because 7 of them are one character short). Released dev format
      (original_nq_answers) is read too. All answerable -> SQuAD v1.1.
  squad_convert.py subjqa OUT.json FILE.csv...      SubjQA train CSV
      context = review without its trailing " ANSWERNOTFOUND"; rows of one
      q_review_id are merged; answer text = review[start:end] of
      human_ans_indices; "ANSWERNOTFOUND" rows -> no answer. A question with
      no answer from any annotator is unanswerable -> SQuAD v2.0.

Offsets are Python string indices (code points), as SQuAD's answer_start.
Every answer is checked (context[start:start+len(text)] == text); the counts
of questions, answers and skipped rows are printed to stderr.
"""
import ast
import csv
import json
import sys


def qed(paths):
    data, n_q, n_a = [], 0, 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                ex = json.loads(line)
                ctx = ex.get("paragraph_text")
                if ctx is None:  # released dev layout
                    ctx = ex["paragraph_text"] if "paragraph_text" in ex else ex["example"]["paragraph_text"]
                spans = []
                if "answer_spans" in ex:
                    spans = [(s, e) for s, e in ex["answer_spans"]]
                for alt in ex.get("original_nq_answers", []):
                    for sp in alt:
                        spans.append((sp["start"], sp["end"]))
                answers = [{"text": ctx[s:e], "answer_start": s} for s, e in spans if 0 <= s < e <= len(ctx)]
                if not answers:
                    continue
                q = ex.get("question_text", "")
                qid = str(ex.get("example_id", n_q))
                data.append({"title": ex.get("title_text", ""), "paragraphs": [
                    {"context": ctx, "qas": [{"id": qid, "question": q, "answers": answers}]}]})
                n_q += 1
                n_a += len(answers)
    print("qed: %d questions, %d answers" % (n_q, n_a), file=sys.stderr)
    return {"version": "1.1", "data": data}


def subjqa(paths):
    END = " ANSWERNOTFOUND"
    groups, order, skipped = {}, [], 0
    csv.field_size_limit(1 << 24)
    for path in paths:
        with open(path, encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                review = row["review"]
                ctx = review[:-len(END)] if review.endswith(END) else review
                key = row["q_review_id"]
                if key not in groups:
                    groups[key] = {"context": ctx, "question": row["question"], "answers": []}
                    order.append(key)
                if row["human_ans_spans"] == "ANSWERNOTFOUND":
                    continue
                try:
                    s, e = ast.literal_eval(row["human_ans_indices"])
                except (ValueError, SyntaxError):
                    skipped += 1
                    continue
                if not (0 <= s < e <= len(ctx)):
                    skipped += 1
                    continue
                a = {"text": ctx[s:e], "answer_start": s}
                if a not in groups[key]["answers"]:
                    groups[key]["answers"].append(a)
    data, imp = [], 0
    for key in order:
        g = groups[key]
        qa = {"id": key, "question": g["question"], "answers": g["answers"]}
        if not g["answers"]:
            qa["is_impossible"] = True
            imp += 1
        data.append({"title": "", "paragraphs": [{"context": g["context"], "qas": [qa]}]})
    print("subjqa: %d questions (%d unanswerable), %d rows skipped" % (len(order), imp, skipped),
          file=sys.stderr)
    return {"version": "v2.0", "data": data}


def check(squad):
    bad = 0
    for art in squad["data"]:
        for p in art["paragraphs"]:
            for qa in p["qas"]:
                for a in qa["answers"]:
                    s = a["answer_start"]
                    bad += p["context"][s:s + len(a["text"])] != a["text"]
    return bad


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("qed", "subjqa"):
        print(__doc__, file=sys.stderr)
        return 2
    out = (qed if sys.argv[1] == "qed" else subjqa)(sys.argv[3:])
    bad = check(out)
    if bad:
        print("error: %d answers do not match their offsets" % bad, file=sys.stderr)
        return 1
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
