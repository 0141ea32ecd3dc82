#!/usr/bin/env python3
"""Checks an HTML page with Python's html.parser: every element closed in order
(void elements excepted), every <svg> with a <title> child, ids unique, nothing
loaded from elsewhere (src/href only to #fragments). Prints one line per problem
and exits 1 if any. With --elements, prints the element tree as JSON lines
({"i", "p" parent, "tag", "a" attributes, "text"}) for the caller to query."""
import json
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Checker(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.elements, self.problems, self.ids = [], [], [], set()

    def where(self):
        line, col = self.getpos()
        return f"line {line}, column {col + 1}"

    def handle_starttag(self, tag, attrs):
        a = {k: (v if v is not None else "") for k, v in attrs}
        parent = self.stack[-1] if self.stack else -1
        self.elements.append({"i": len(self.elements), "p": parent, "tag": tag, "a": a, "text": ""})
        if "id" in a:
            if a["id"] in self.ids:
                self.problems.append(f"{self.where()}: duplicate id {a['id']!r}")
            self.ids.add(a["id"])
        for k in ("src", "href", "action", "xlink:href", "srcset"):
            if k in a and not a[k].startswith("#"):
                self.problems.append(f"{self.where()}: <{tag} {k}={a[k]!r}> loads from outside the page")
        if tag == "title" and parent >= 0 and self.elements[parent]["tag"] == "svg":
            self.elements[parent]["has_title"] = True
        if tag not in VOID:
            self.stack.append(len(self.elements) - 1)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()  # <x/> in SVG closes itself

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack:
            self.problems.append(f"{self.where()}: </{tag}> closes nothing")
            return
        open_tag = self.elements[self.stack[-1]]["tag"]
        if open_tag != tag:
            self.problems.append(f"{self.where()}: </{tag}> closes <{open_tag}>")
            return
        self.stack.pop()

    def handle_data(self, data):
        if self.stack:
            self.elements[self.stack[-1]]["text"] += data


def main():
    args = sys.argv[1:]
    dump = "--elements" in args
    path = [a for a in args if a != "--elements"][0]
    with open(path, encoding="utf-8", errors="strict") as f:
        text = f.read()
    c = Checker()
    c.feed(text)
    c.close()
    for i in c.stack:
        c.problems.append(f"end of file: <{c.elements[i]['tag']}> never closed")
    for e in c.elements:
        if e["tag"] == "svg" and not e.get("has_title"):
            c.problems.append(f"<svg> element {e['i']} has no <title>")
        if e["tag"] == "style" and ("url(" in e["text"] or "@import" in e["text"]):
            c.problems.append("a stylesheet loads from outside the page")
    if dump:
        for e in c.elements:
            print(json.dumps(e))
    for p in c.problems:
        print("problem: " + p)
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main())
