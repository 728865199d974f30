// The Chinese edition's search: Sphinx 9.0's Chinese language data ends with
// `window.Stemmer = ChineseStemmer` but never defines ChineseStemmer, so its search page
// stops with a script error. Stem as Sphinx's Python side does for Chinese pages: a
// Latin word by the English stemmer (defined by that same language data, which runs
// after this file and before any query), any other word unchanged.
window.ChineseStemmer = function () {
  var english = new EnglishStemmer();
  this.stemWord = function (word) {
    return /^[a-zA-Z0-9_]+$/.test(word) ? english.stemWord(word.toLowerCase()) : word;
  };
};
