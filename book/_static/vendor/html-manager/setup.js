// Written by scripts/vendor_js.sh (not part of any npm package). Load it after require.min.js and
// before embed-amd.js; it adapts the ipywidgets HTML manager to a site that serves everything itself.
(function () {
  // 1. Each bundle in embed-amd.js finds its assets (the Font Awesome fonts its CSS declares) next to
  //    the RequireJS URL of its own module, by default relative to the page: two bundles declare the
  //    fonts, "@jupyter-widgets/html-manager/dist/libembed-amd" and "@jupyter-widgets/html-manager",
  //    and a page that lays out an icon after the second's CSS is in asks for
  //    <page folder>/@jupyter-widgets/<font> (a 404). Point every bundle's URL, and the manager's
  //    assets path, at this folder, where the fonts are vendored.
  var here = document.currentScript.src.replace(/[?#].*$/, "").replace(/[^/]*$/, "");
  window.__jupyter_widgets_assets_path__ = here;
  var paths = {};
  ["base", "controls", "base7", "controls7", "html-manager", "html-manager/dist/libembed-amd"].forEach(
    function (name) { paths["@jupyter-widgets/" + name] = here + name.replace(/.*\//, ""); });
  window.require.config({ paths: paths });

  // 2. ipywidgets typesets widget labels with the MathJax 2 call MathJax.Hub.Queue(["Typeset", hub, el]);
  //    the book loads MathJax 3, which has no Hub. Map that call onto MathJax 3's typesetPromise,
  //    after turning Jupyter's $...$ and $$...$$ in a plain-text label into \(...\) and \[...\]
  //    (the delimiters of the book's MathJax 3). Installed on "load", which comes after MathJax (a
  //    deferred script) and before the manager renders widgets (it waits for "load" too, and
  //    registers its listener after this one).
  function texDelimiters(element) {
    if (element.childElementCount === 0 && element.textContent.indexOf("$") >= 0) {
      element.textContent = element.textContent
        .replace(/\$\$([^$]+)\$\$/g, "\\[$1\\]")
        .replace(/\$([^$]+)\$/g, "\\($1\\)");
    }
    return element;
  }
  window.addEventListener("load", function () {
    var mj = window.MathJax;
    if (!mj || mj.Hub || !mj.startup) return;
    mj.Hub = {
      Queue: function () {
        var elements = [];
        Array.prototype.forEach.call(arguments, function (call) {
          if (Array.isArray(call) && call[0] === "Typeset" && call[2]) elements.push(texDelimiters(call[2]));
        });
        if (elements.length) {
          mj.startup.promise
            .then(function () { return mj.typesetPromise(elements); })
            .catch(function (err) { console.warn("MathJax could not typeset a widget label:", err); });
        }
      },
    };
  });
})();
