// An independent LanguageTool client against electra-server: npm's
// languagetool-api (its check, showMistakes, bestSuggestion, codes), whose
// URLs are fixed to languagetool.org; its `request` module is wrapped so
// those URLs go to the server under test instead. Usage:
//   NODE_PATH=DIR/node_modules node lt_client.js PORT TEXT
// Prints {"mistakes":[..],"suggestions":[..],"codes":[..],"language":".."} on stdout.
const Module = require("module");
const port = process.argv[2], text = process.argv[3];
const base = "http://127.0.0.1:" + port;
const load = Module._load;
Module._load = function (name, parent, isMain) {
  const real = load.apply(this, arguments);
  if (name !== "request") return real;
  return function (url, cb) {
    return real(String(url).replace("https://languagetool.org/api", base), cb);
  };
};
const lt = require("languagetool-api");
lt.check({ language: "en-US", text: text }, function (err, res) {
  if (err) { console.error(err); process.exit(2); }
  lt.showMistakes(res, function (mistakes) {
    lt.bestSuggestion(res, function (suggestions) {
      lt.codes(function (err2, codes) {
        if (err2) { console.error(err2); process.exit(2); }
        console.log(JSON.stringify({ mistakes, suggestions, codes: codes.map((c) => c.longCode),
                                     language: res.language.code }));
      });
    });
  });
});
