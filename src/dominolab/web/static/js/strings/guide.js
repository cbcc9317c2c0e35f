// The guide texts, English and Polish (merged into i18n.js's dictionaries; a key may be
// defined once only). Polish game words as in docs/rules.md section 7.

export const en = {
};

export const pl = {
};
