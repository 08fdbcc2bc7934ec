/* The style module JupyterLab loads for this prebuilt extension (package.json "styleModule").
   Every stylesheet of style/ must be imported here AND in index.css ("style"); the jest test
   src/__tests__/styles.spec.ts fails when one is missing. */
import './base.css';
import './inspector.css';
import './report.css';
import './history.css';
import './training.css';
