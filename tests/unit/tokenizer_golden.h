/* The tokenizer's golden cases, shared by the engine's tokenizer test
 * (tests/unit/test_engine_tokenizer.c: the pieces and offsets on its toy
 * vocabulary) and the vocabulary builder's test (test_train_vocab.c: the
 * builder splits these texts into the words the engine splits them into).
 * Each expectation lists the WordPiece tokens of the toy vocabulary with
 * their [start,end) code-point offsets; they were worked out by hand from
 * HF's algorithm (PreTrainedTokenizer.tokenize + BasicTokenizer +
 * WordpieceTokenizer). */
#ifndef EL_TEST_TOKENIZER_GOLDEN_H
#define EL_TEST_TOKENIZER_GOLDEN_H

typedef struct golden {
  const char *what;
  const char *text;
  int len; /* -1: strlen */
  const char *expect;
} golden;

/* Uncased tokenizer (do_lower_case = 1) on the toy vocabulary. */
static const golden k_uncased[] = {
    {"## pieces", "unaffable", -1, "un[0,2) ##aff[2,5) ##able[5,9)"},
    {"## pieces after lower-casing", "UnAffable", -1, "un[0,2) ##aff[2,5) ##able[5,9)"},
    {"unmatched tail makes the whole word [UNK]", "unaffablea", -1, "[UNK][0,10)"},
    {"punctuation split", "Hello, world!", -1, "hello[0,5) ,[5,6) world[7,12) ![12,13)"},
    {"surrounding and repeated spaces", "  hello   world  ", -1, "hello[2,7) world[10,15)"},
    {"longest match first", "abc", -1, "abc[0,3)"},
    {"longest match then ##", "abcb", -1, "abc[0,3) ##b[3,4)"},
    {"shorter matches when longer fail", "acb", -1, "a[0,1) ##c[1,2) ##b[2,3)"},
    {"unknown continuation -> [UNK] over the word", "abd", -1, "[UNK][0,3)"},
    {"unknown word", "zebra", -1, "[UNK][0,5)"},
    {"accents stripped (precomposed)", "Na\xc3\xafve caf\xc3\xa9", -1, "naive[0,5) cafe[6,10)"},
    {"accents stripped (decomposed input, NFC spans)", "Nai\xcc\x88ve cafe\xcc\x81", -1,
     "naive[0,6) cafe[7,12)"},
    {"İ lower-cases to i + U+0307, mark stripped", "\xc4\xb0stanbul", -1, "istanbul[0,8)"},
    {"I + U+0307 lower-cased, not composed", "I\xcc\x87stanbul", -1, "istanbul[0,9)"},
    {"ß stays ß", "stra\xc3\x9f" "e", -1, "stra[0,4) ##\xc3\x9f" "e[4,6)"},
    {"capital ẞ lower-cases to ß", "STRA\xe1\xba\x9e" "E", -1, "stra[0,4) ##\xc3\x9f" "e[4,6)"},
    {"Angstrom sign: NFC Å, lower å, accent stripped", "\xe2\x84\xab", -1, "a[0,1)"},
    {"Kelvin sign lower-cases to k", "\xe2\x84\xaa", -1, "k[0,1)"},
    {"no final sigma (per-character lower)", "\xce\x9f\xce\x94\xce\x9f\xce\xa3", -1,
     "\xce\xbf\xce\xb4\xce\xbf\xcf\x83[0,4)"},
    {"Hangul syllable decomposes to jamo (NFD)", "\xed\x95\x9c", -1,
     "\xe1\x84\x92[0,1) ##\xe1\x85\xa1[0,1) ##\xe1\x86\xab[0,1)"},
    {"marks in any order compose then strip", "a\xcc\x82\xcc\xa3", -1, "a[0,3)"},
    {"CJK split", "\xe4\xb8\xad\xe6\x96\x87", -1, "\xe4\xb8\xad[0,1) \xe6\x96\x87[1,2)"},
    {"CJK inside a word", "a\xe4\xb8\xad" "b", -1, "a[0,1) \xe4\xb8\xad[1,2) [UNK][2,3)"},
    {"CJK ext B counts one code point", "x\xf0\xa0\x80\x80x", -1, "x[0,1) [UNK][1,2) x[2,3)"},
    {"CJK compatibility ideograph", "\xef\xa4\x80", -1, "[UNK][0,1)"},
    {"Hiragana is not CJK-split", "\xe3\x81\x8b\xe3\x81\xaa", -1, "[UNK][0,2)"},
    {"emoji", "\xf0\x9f\x91\x8d", -1, "[UNK][0,1)"},
    {"emoji glued to a word", "hello\xf0\x9f\x91\x8d", -1, "[UNK][0,6)"},
    {"ZWJ emoji sequence (ZWJ is Cf: dropped)",
     "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7", -1, "[UNK][0,5)"},
    {"emoji + VS16 (Mn: stripped)", "\xe2\x9d\xa4\xef\xb8\x8f x", -1, "[UNK][0,1) x[3,4)"},
    {"punctuation run", "hello!!!", -1, "hello[0,5) ![5,6) ![6,7) ![7,8)"},
    {"ASCII symbols are punctuation", "$-", -1, "$[0,1) -[1,2)"},
    {"dots", "...?", -1, ".[0,1) .[1,2) .[2,3) ?[3,4)"},
    {"apostrophe", "don't", -1, "don[0,3) '[3,4) t[4,5)"},
    {"Unicode punctuation (Pi/Pf)", "\xc2\xabhello\xc2\xbb", -1, "[UNK][0,1) hello[1,6) [UNK][6,7)"},
    {"ellipsis is punctuation", "hello\xe2\x80\xa6", -1, "hello[0,5) [UNK][5,6)"},
    {"special token between spaces", "hello [MASK] world", -1, "hello[0,5) [MASK][6,12) world[13,18)"},
    {"special token glued", "hello[MASK]world", -1, "hello[0,5) [MASK][5,11) world[11,16)"},
    {"adjacent specials", "[CLS][SEP]", -1, "[CLS][0,5) [SEP][5,10)"},
    {"lower-case spelling is not special", "[Mask]", -1, "[[0,1) mask[1,5) ][5,6)"},
    {"incomplete special", "[MASK", -1, "[[0,1) mask[1,5)"},
    {"special made by cleaning is lower-cased when uncased", "[MA\xe2\x80\x8bSK]", -1,
     "[[0,1) mask[1,6) ][6,7)"},
    {"combining mark after special", "[MASK]\xcc\x81", -1, "[MASK][0,6)"},
    {"NUL removed inside word", "hel\0lo", 6, "hello[0,6)"},
    {"ZWSP removed inside word", "hel\xe2\x80\x8blo", -1, "hello[0,6)"},
    {"U+FFFD removed", "hel\xef\xbf\xbdlo", -1, "hello[0,6)"},
    {"tab CR LF are spaces", "hello\tworld\r\nx", -1, "hello[0,5) world[6,11) x[13,14)"},
    {"NBSP is a space", "hello\xc2\xa0world", -1, "hello[0,5) world[6,11)"},
    {"ideographic space", "hello\xe3\x80\x80world", -1, "hello[0,5) world[6,11)"},
    {"U+2028 splits (Python str.split)", "hello\xe2\x80\xa8world", -1, "hello[0,5) world[6,11)"},
    {"lone combining mark vanishes", "\xcc\x81", -1, ""},
    {"spaced combining mark vanishes", "a \xcc\x81 x", -1, "a[0,1) x[4,5)"},
    {"uncomposable mark stripped, not in span", "x\xcc\x81", -1, "x[0,1)"},
    {"mixed scripts in one word", "hello\xd0\xbc\xd0\xb8\xd1\x80", -1, "[UNK][0,8)"},
    {"mixed scripts", "hello \xd0\xbc\xd0\xb8\xd1\x80", -1, "hello[0,5) [UNK][6,9)"},
    {"fullwidth letters are not NFKC-folded", "\xef\xbc\xa8" "ello", -1, "[UNK][0,5)"},
    {"empty", "", 0, ""},
    {"only spaces", "   \t\n  ", -1, ""},
    {"only control characters", "\x01\x02\x7f\x1b", -1, ""},
    {"only format characters", "\xe2\x80\x8b\xef\xbb\xbf", -1, ""},
};

/* Cased tokenizer (do_lower_case = 0) on the same vocabulary. */
static const golden k_cased[] = {
    {"cased keeps capitals", "Hello hello", -1, "Hello[0,5) hello[6,11)"},
    {"cased unknown capitals", "HELLO", -1, "[UNK][0,5)"},
    {"cased keeps accents (precomposed)", "caf\xc3\xa9", -1, "caf\xc3\xa9[0,4)"},
    {"cased NFC of decomposed input", "cafe\xcc\x81", -1, "caf\xc3\xa9[0,5)"},
    {"cased no accent strip", "na\xc3\xafve", -1, "[UNK][0,5)"},
    {"cased İ kept", "\xc4\xb0", -1, "[UNK][0,1)"},
    {"cased I + U+0307 composes to İ", "I\xcc\x87", -1, "[UNK][0,2)"},
    {"cased canonical reordering then NFC", "a\xcc\x82\xcc\xa3", -1, "\xe1\xba\xad[0,3)"},
    {"cased other mark order", "a\xcc\xa3\xcc\x82", -1, "\xe1\xba\xad[0,3)"},
    {"cased special made by cleaning is never split", "[MA\xe2\x80\x8bSK]", -1, "[MASK][0,7)"},
    {"cased special in text", "x[SEP]x", -1, "x[0,1) [SEP][1,6) x[6,7)"},
    {"cased lone mark is a word", "\xcc\x81", -1, "[UNK][0,1)"},
};

/* Invalid UTF-8: refused, the message naming byte `at`. */
typedef struct bad_utf8 {
  const char *what, *bytes;
  int len, at;
} bad_utf8;

static const bad_utf8 k_bad_utf8[] = {
    {"overlong NUL", "\xc0\x80", 2, 0},
    {"overlong 3-byte", "a\xe0\x80\xaf", 4, 1},
    {"overlong 4-byte", "ab\xf0\x80\x80\xaf", 6, 2},
    {"UTF-16 surrogate", "ab\xed\xa0\x80", 5, 2},
    {"truncated at end", "abc\xe2\x82", 5, 3},
    {"missing continuation", "x\xe2\x28\xa1", 4, 1},
    {"stray continuation byte", "hello \x80 world", 13, 6},
    {"above U+10FFFF", "\xf4\x90\x80\x80", 4, 0},
    {"0xFF byte", "ok\xff", 3, 2},
    {"F5 lead byte", "\xf5\x80\x80\x80", 4, 0},
};

#endif
