/** The console's icon, for the browser's tab: a blue tile with three lines, as of a list of records. */
export const CONSOLE_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/><path d="M9 10h14M9 16h14M9 22h8" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>
`;
