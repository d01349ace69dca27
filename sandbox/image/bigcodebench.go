package image

import _ "embed"

//go:embed bigcodebench/capsule_matplotlib.py
var matplotlibHook string

// BigCodeBench is the image BigCodeBench's tasks run in: the default image
// plus Debian 12's python3 packages of the libraries its tasks import
// (datasets/bigcodebench/SOURCE.txt lists the few Debian lacks), with
// matplotlib on its non-interactive Agg backend and its font cache built
// into the image.
var BigCodeBench = Recipe{
	Key:  "bigcodebench",
	Name: "capsule-bigcodebench",
	Packages: append(append([]string(nil), Python.Packages...),
		"python3-numpy", "python3-pandas", "python3-matplotlib", "python3-scipy",
		"python3-sklearn", "python3-seaborn", "python3-requests", "python3-nltk",
		"python3-tz", "python3-bs4", "python3-pil", "python3-dateutil",
		"python3-opencv", "python3-statsmodels", "python3-django", "python3-flask",
		"python3-rsa", "python3-regex", "python3-psutil", "python3-cryptography",
		"python3-flask-mail", "python3-folium", "python3-xlwt", "python3-wordcloud",
		"python3-skimage", "python3-geopy", "python3-sympy", "python3-mechanize",
		"python3-docx", "python3-openpyxl", "python3-texttable", "python3-xmltodict",
		"python3-lxml", "python3-flask-restful", "python3-flask-login",
		"python3-flaskext.wtf", "python3-werkzeug", "python3-wtforms",
		"python3-holidays", "python3-geopandas", "python3-shapely",
		"python3-soundfile", "python3-requests-mock", "python3-natsort",
		"python3-prettytable", "python3-pyquery", "python3-gensim", "python3-yaml",
		"python3-pyfakefs", "python3-levenshtein", "python3-chardet",
		"python3-fake-factory", "python3-pycryptodome", "python3-tk",
		// Programs some tests run in a subprocess.
		"python-is-python3", "unzip"),
	Env: []string{"MPLBACKEND=Agg"},
	Files: map[string]string{
		"/usr/lib/python3/dist-packages/capsule_matplotlib.py":  matplotlibHook,
		"/usr/lib/python3/dist-packages/capsule_matplotlib.pth": "import capsule_matplotlib\n",
	},
	// Build matplotlib's font cache where the start-up hook finds it; this
	// also proves the main libraries import.
	Setup: []string{"MPLCONFIGDIR=/usr/local/share/capsule/matplotlib python3 -c 'import matplotlib.pyplot, numpy, pandas, scipy, sklearn, seaborn'" +
		" && chmod -R a+rX /usr/local/share/capsule"},
}
