package httpapi

import (
	"bytes"
	"encoding/json"
	"html"
	"io/fs"
	"regexp"
	"strings"
)

// firstScreens is dist/first-screen.json, which the dashboard's build writes
// (web/vite.config.ts) from web/src/first-screen.json: for each page, its
// path pattern, the route chunk and the chunks it imports beyond the main
// bundle, their stylesheets, and the API reads of its first screen.
type firstScreens struct {
	ShellReads []string          `json:"shellReads"`
	Pages      []firstScreenPage `json:"pages"`
}

type firstScreenPage struct {
	Path    string   `json:"path"`
	Reads   []string `json:"reads"`
	Modules []string `json:"modules"`
	Styles  []string `json:"styles"`
}

var (
	pageUUID  = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	readParam = regexp.MustCompile(`:[A-Za-z]+`)
)

// loadFirstScreens reads first-screen.json from the built dashboard; a build
// without it announces nothing.
func loadFirstScreens(files fs.FS) *firstScreens {
	raw, err := fs.ReadFile(files, "first-screen.json")
	if err != nil {
		return nil
	}
	var fsc firstScreens
	if json.Unmarshal(raw, &fsc) != nil {
		return nil
	}
	return &fsc
}

// links are the <link> elements that announce, in index.html's head, what the
// page at path needs first: its route's chunks as modulepreload, fetched and
// compiled beside the main bundle instead of after it has run; their
// stylesheets as style preloads, loaded by the time the route's import adds
// and waits for them (Vite's import adds the stylesheets); and its first
// API reads as fetch preloads, which web/src/lib/early-reads.ts then asks for
// again and gets from the preload. The pattern match is early-reads.ts's: a
// ":name" segment matches a UUID only; a path no page matches gets the
// shell's reads alone.
func (fsc *firstScreens) links(path string) []byte {
	if fsc == nil {
		return nil
	}
	reads, modules, styles := fsc.ShellReads, []string(nil), []string(nil)
	if page, params := fsc.match(path); page != nil {
		modules, styles = page.Modules, page.Styles
		reads = make([]string, 0, len(page.Reads))
		for _, r := range page.Reads {
			reads = append(reads, readParam.ReplaceAllStringFunc(r, func(name string) string { return params[name] }))
		}
	}
	var b bytes.Buffer
	for _, m := range modules {
		b.WriteString(`<link rel="modulepreload" crossorigin href="` + html.EscapeString(m) + "\">\n")
	}
	for _, s := range styles {
		b.WriteString(`<link rel="preload" as="style" crossorigin href="` + html.EscapeString(s) + "\">\n")
	}
	for _, r := range reads {
		b.WriteString(`<link rel="preload" as="fetch" crossorigin href="` + html.EscapeString(r) + "\">\n")
	}
	return b.Bytes()
}

func (fsc *firstScreens) match(path string) (*firstScreenPage, map[string]string) {
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	got := strings.Split(path, "/")
	for i := range fsc.Pages {
		want := strings.Split(fsc.Pages[i].Path, "/")
		if len(want) != len(got) {
			continue
		}
		params := map[string]string{}
		ok := true
		for j, seg := range want {
			if name, isParam := strings.CutPrefix(seg, ":"); isParam {
				params[":"+name] = got[j]
				ok = ok && pageUUID.MatchString(got[j])
			} else {
				ok = ok && seg == got[j]
			}
		}
		if ok {
			return &fsc.Pages[i], params
		}
	}
	return nil, nil
}

// withLinks puts links into page just before its </head>.
func withLinks(page, links []byte) []byte {
	at := bytes.Index(page, []byte("</head>"))
	if at < 0 || len(links) == 0 {
		return page
	}
	out := make([]byte, 0, len(page)+len(links))
	out = append(out, page[:at]...)
	out = append(out, links...)
	return append(out, page[at:]...)
}
