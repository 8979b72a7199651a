package engine

import "strings"

// withArticle prefixes word with "a" or "an" by its first letter, so
// approval reasons read "an explorer agent", not "a explorer agent".
// It goes by spelling (vowel letters), which is right for the agent types
// and names grove uses; a word starting with a digit or symbol gets "a".
func withArticle(word string) string {
	if word == "" {
		return word
	}
	switch strings.ToLower(word[:1]) {
	case "a", "e", "i", "o", "u":
		return "an " + word
	}
	return "a " + word
}
