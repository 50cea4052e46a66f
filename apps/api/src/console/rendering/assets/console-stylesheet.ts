/**
 * The console's one stylesheet, served as a file (`ConsoleAssetsController`): the pages carry no
 * inline style, so their CSP allows styles from the service alone. Narrow screens (360 px) get one
 * column; lists are dense tables, one row a record, which scroll sideways inside their own box
 * (as code does) so that the page never does; relative, so that the hidden labels in them scroll with them.
 */
export const CONSOLE_STYLESHEET = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#f4f5f7;color:#1d2330;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:anywhere}
a{color:#1d4ed8}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
.skip-link{position:absolute;left:.5rem;top:-4rem;padding:.5rem .75rem;background:#fff;border-radius:6px;z-index:1}
.skip-link:focus{top:.5rem}
.top{background:#111827;color:#f9fafb}
.top a,.top .who{color:#f9fafb}
.top :focus-visible{outline-color:#93c5fd}
.bar{max-width:80rem;margin:0 auto;padding:.75rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem}
.brand{font-weight:700;text-decoration:none;margin-right:auto}
.who{font-size:.9rem}
.top form{margin:0}
.top button{background:transparent;border-color:#9ca3af;color:#f9fafb;padding:.3rem .75rem}
nav.sections{background:#fff;border-bottom:1px solid #d1d5db}
nav.sections ul{max-width:80rem;margin:0 auto;padding:0 .5rem;list-style:none;display:flex;flex-wrap:wrap}
nav.sections a{display:block;padding:.7rem .5rem;color:#374151;text-decoration:none;border-bottom:3px solid transparent}
nav.sections a[aria-current=page]{color:#1d4ed8;border-bottom-color:#1d4ed8;font-weight:600}
main{max-width:80rem;margin:0 auto;padding:1.5rem 1rem 3rem}
h1{font-size:1.5rem;margin:0 0 1rem}
h2{font-size:1.15rem;margin:2rem 0 .75rem}
h3{font-size:1rem;margin:0}
p{margin:0 0 1rem}
.lead{color:#4b5565}
.panel{background:#fff;border:1px solid #d1d5db;border-radius:10px;padding:1.25rem;margin:0 0 1.5rem}
.panel > :first-child{margin-top:0}
.panel > :last-child{margin-bottom:0}
.records{list-style:none;margin:0 0 1.5rem;padding:0;display:grid;gap:.75rem}
.record{background:#fff;border:1px solid #d1d5db;border-radius:10px;padding:1rem;min-width:0}
.record-head{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;margin-bottom:.5rem}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(16rem,1fr));gap:.5rem 1rem;margin:0 0 1rem}
.record .facts{margin:0}
.facts div{min-width:0}
.facts dt{font-size:.8rem;color:#4b5565;text-transform:uppercase;letter-spacing:.03em}
.facts dd{margin:0}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.75rem}
.actions form{margin:0}
.empty{color:#4b5565;background:#fff;border:1px dashed #9ca3af;border-radius:10px;padding:1rem}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:999px;font-size:.8rem;font-weight:600;background:#e5e7eb;color:#1f2937}
.badge.good{background:#dcfce7;color:#14532d}
.badge.bad{background:#fee2e2;color:#7f1d1d}
.badge.waiting{background:#fef9c3;color:#713f12}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875rem}
pre{background:#111827;color:#f9fafb;padding:1rem;border-radius:8px;overflow:auto;max-height:28rem;margin:0 0 1rem}
label,legend{display:block;font-weight:600;margin:0 0 .25rem}
.hint{display:block;color:#4b5565;font-size:.9rem;font-weight:400;margin:-.15rem 0 .35rem}
input[type=text],input[type=url],input[type=email],input[type=password],select,textarea{display:block;width:100%;max-width:36rem;padding:.55rem .7rem;border:1px solid #6b7280;border-radius:8px;font:inherit;background:#fff;color:inherit}
textarea{min-height:5rem}
.field{margin:0 0 1rem}
fieldset{border:0;padding:0;margin:0 0 1rem;min-width:0}
.choices{display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:.35rem 1rem}
.choice{display:flex;align-items:center;gap:.5rem;font-weight:400;margin:0}
.choice input{width:1.1rem;height:1.1rem;margin:0}
[aria-invalid=true]{border-color:#b91c1c}
.field-problem{display:block;color:#991b1b;font-weight:600;font-size:.9rem;margin:0 0 .35rem}
button,.button{display:inline-block;padding:.5rem 1rem;border:1px solid #1d4ed8;border-radius:8px;background:#1d4ed8;color:#fff;font:inherit;font-weight:600;line-height:1.5;text-decoration:none;cursor:pointer}
button.secondary,.button.secondary{background:#fff;color:#1d4ed8}
button.danger{background:#fff;border-color:#b91c1c;color:#b91c1c}
button[hidden]{display:none}
.alert{padding:.75rem 1rem;border-radius:8px;background:#fdecec;color:#7f1d1d;margin:0 0 1rem}
.alert ul{margin:.25rem 0 0;padding-left:1.25rem}
.alert a{color:#7f1d1d}
.notice{padding:.75rem 1rem;border-radius:8px;background:#e0f2fe;color:#0c4a6e;margin:0 0 1rem}
.secret{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;background:#fff;border:2px solid #1d4ed8;border-radius:10px;padding:1rem;margin:0 0 1rem}
.secret code{font-size:1rem;flex:1 1 16rem}
.copy-status{display:block;min-height:1.5em;color:#14532d;font-weight:600}
.pages{display:flex;flex-wrap:wrap;align-items:center;gap:1rem;margin:0 0 1.5rem}
.table-scroll{position:relative;overflow-x:auto;background:#fff;border:1px solid #d1d5db;border-radius:10px;margin:0 0 1.5rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{padding:.4rem .75rem;text-align:left;vertical-align:middle;border-bottom:1px solid #e5e7eb;white-space:nowrap;overflow-wrap:normal}
thead th{background:#f9fafb;font-size:.75rem;color:#4b5565;text-transform:uppercase;letter-spacing:.03em;font-weight:600}
tbody tr:last-child td{border-bottom:0}
tbody tr:hover{background:#f9fafb}
td.wrap,td .wrap{white-space:normal;min-width:12rem}
td .actions{margin:0;flex-wrap:nowrap;gap:.35rem}
td button,td .button{padding:.15rem .6rem;font-size:.85rem}
td select{display:inline-block;width:auto;padding:.15rem .4rem;font-size:.85rem}
.row-form{display:flex;align-items:center;gap:.35rem;margin:0}
.timeline{list-style:none;margin:0 0 1.5rem;padding:0 0 0 1rem;border-left:3px solid #d1d5db;display:grid;gap:.75rem}
.filters{display:flex;flex-wrap:wrap;align-items:flex-end;gap:.75rem;margin:0 0 1.5rem}
.filters .field{margin:0;flex:1 1 14rem}
.sign-in{max-width:26rem;margin:3rem auto}
.muted{color:#4b5565;font-size:.9rem}
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
@media (max-width:40rem){
  main{padding:1rem .75rem 2rem}
  .bar{padding:.6rem .75rem}
  h1{font-size:1.3rem}
  .facts{grid-template-columns:1fr}
  .sign-in{margin:1rem auto}
  .actions button,.actions .button{width:100%}
  .actions form{width:100%}
  td .actions button,td .actions form{width:auto}
}
`;
