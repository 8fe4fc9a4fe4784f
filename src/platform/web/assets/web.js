// Progressive enhancement for pages that ask for it; every page works without this file.
// A button `<button type="button" data-copy="ID" hidden>` copies the text of element ID and says so.
'use strict';
for (const button of document.querySelectorAll('button[data-copy]')) {
  const target = document.getElementById(button.dataset.copy);
  if (!target || !navigator.clipboard) continue;
  const label = button.textContent;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(target.value ?? target.textContent);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Select the text and copy it';
    }
    setTimeout(() => {
      button.textContent = label;
    }, 2500);
  });
}
