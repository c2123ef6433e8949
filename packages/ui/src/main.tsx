// The provenance explorer's entry: styles, then the app into #app.
import { render } from 'preact';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { App } from './app.tsx';

render(<App />, document.getElementById('app')!);
