package promql

// valueType is the type of an expression's value.
type valueType uint8

const (
	none valueType = iota
	scalar
	vector
	matrix
	str
)

// String names the type as Prometheus's documentation does.
func (t valueType) String() string {
	switch t {
	case scalar:
		return "scalar"
	case vector:
		return "instant vector"
	case matrix:
		return "range vector"
	case str:
		return "string"
	}
	return "no value"
}

// function is the signature of a PromQL function.
type function struct {
	name string
	args []valueType
	// variadic is 0 when the function takes exactly args. Otherwise the
	// last argument is optional and may repeat: up to variadic times in
	// all, or any number of times when -1 (round(x) and round(x, 1);
	// label_join(x, "dst", ",", "a", "b", ...)).
	variadic int
	returns  valueType
}

// functions are the functions of Prometheus 3.x (v0.316.0,
// promql/parser/functions.go) with their arguments' types, by name; the
// experimental ones (which a server runs only with
// --enable-feature=promql-experimental-functions) included. Read-only.
var functions = map[string]*function{
	"abs":                          {name: "abs", args: []valueType{vector}, returns: vector},
	"absent":                       {name: "absent", args: []valueType{vector}, returns: vector},
	"absent_over_time":             {name: "absent_over_time", args: []valueType{matrix}, returns: vector},
	"acos":                         {name: "acos", args: []valueType{vector}, returns: vector},
	"acosh":                        {name: "acosh", args: []valueType{vector}, returns: vector},
	"asin":                         {name: "asin", args: []valueType{vector}, returns: vector},
	"asinh":                        {name: "asinh", args: []valueType{vector}, returns: vector},
	"atan":                         {name: "atan", args: []valueType{vector}, returns: vector},
	"atanh":                        {name: "atanh", args: []valueType{vector}, returns: vector},
	"avg_over_time":                {name: "avg_over_time", args: []valueType{matrix}, returns: vector},
	"ceil":                         {name: "ceil", args: []valueType{vector}, returns: vector},
	"changes":                      {name: "changes", args: []valueType{matrix}, returns: vector},
	"clamp":                        {name: "clamp", args: []valueType{vector, scalar, scalar}, returns: vector},
	"clamp_max":                    {name: "clamp_max", args: []valueType{vector, scalar}, returns: vector},
	"clamp_min":                    {name: "clamp_min", args: []valueType{vector, scalar}, returns: vector},
	"cos":                          {name: "cos", args: []valueType{vector}, returns: vector},
	"cosh":                         {name: "cosh", args: []valueType{vector}, returns: vector},
	"count_over_time":              {name: "count_over_time", args: []valueType{matrix}, returns: vector},
	"day_of_month":                 {name: "day_of_month", args: []valueType{vector}, variadic: 1, returns: vector},
	"day_of_week":                  {name: "day_of_week", args: []valueType{vector}, variadic: 1, returns: vector},
	"day_of_year":                  {name: "day_of_year", args: []valueType{vector}, variadic: 1, returns: vector},
	"days_in_month":                {name: "days_in_month", args: []valueType{vector}, variadic: 1, returns: vector},
	"deg":                          {name: "deg", args: []valueType{vector}, returns: vector},
	"delta":                        {name: "delta", args: []valueType{matrix}, returns: vector},
	"deriv":                        {name: "deriv", args: []valueType{matrix}, returns: vector},
	"double_exponential_smoothing": {name: "double_exponential_smoothing", args: []valueType{matrix, scalar, scalar}, returns: vector},
	"end":                          {name: "end", args: []valueType{}, returns: scalar},
	"exp":                          {name: "exp", args: []valueType{vector}, returns: vector},
	"first_over_time":              {name: "first_over_time", args: []valueType{matrix}, returns: vector},
	"floor":                        {name: "floor", args: []valueType{vector}, returns: vector},
	"histogram_avg":                {name: "histogram_avg", args: []valueType{vector}, returns: vector},
	"histogram_count":              {name: "histogram_count", args: []valueType{vector}, returns: vector},
	"histogram_fraction":           {name: "histogram_fraction", args: []valueType{scalar, scalar, vector}, returns: vector},
	"histogram_quantile":           {name: "histogram_quantile", args: []valueType{scalar, vector}, returns: vector},
	"histogram_quantiles":          {name: "histogram_quantiles", args: []valueType{vector, str, scalar, scalar}, variadic: 9, returns: vector},
	"histogram_stddev":             {name: "histogram_stddev", args: []valueType{vector}, returns: vector},
	"histogram_stdvar":             {name: "histogram_stdvar", args: []valueType{vector}, returns: vector},
	"histogram_sum":                {name: "histogram_sum", args: []valueType{vector}, returns: vector},
	"hour":                         {name: "hour", args: []valueType{vector}, variadic: 1, returns: vector},
	"idelta":                       {name: "idelta", args: []valueType{matrix}, returns: vector},
	"increase":                     {name: "increase", args: []valueType{matrix}, returns: vector},
	"info":                         {name: "info", args: []valueType{vector, vector}, variadic: 1, returns: vector},
	"integral":                     {name: "integral", args: []valueType{matrix, scalar}, variadic: 1, returns: vector},
	"irate":                        {name: "irate", args: []valueType{matrix}, returns: vector},
	"label_join":                   {name: "label_join", args: []valueType{vector, str, str, str}, variadic: -1, returns: vector},
	"label_replace":                {name: "label_replace", args: []valueType{vector, str, str, str, str}, returns: vector},
	"last_over_time":               {name: "last_over_time", args: []valueType{matrix}, returns: vector},
	"ln":                           {name: "ln", args: []valueType{vector}, returns: vector},
	"log10":                        {name: "log10", args: []valueType{vector}, returns: vector},
	"log2":                         {name: "log2", args: []valueType{vector}, returns: vector},
	"mad_over_time":                {name: "mad_over_time", args: []valueType{matrix}, returns: vector},
	"max_of":                       {name: "max_of", args: []valueType{scalar, scalar}, returns: scalar},
	"max_over_time":                {name: "max_over_time", args: []valueType{matrix}, returns: vector},
	"min_of":                       {name: "min_of", args: []valueType{scalar, scalar}, returns: scalar},
	"min_over_time":                {name: "min_over_time", args: []valueType{matrix}, returns: vector},
	"minute":                       {name: "minute", args: []valueType{vector}, variadic: 1, returns: vector},
	"month":                        {name: "month", args: []valueType{vector}, variadic: 1, returns: vector},
	"pi":                           {name: "pi", args: []valueType{}, returns: scalar},
	"predict_linear":               {name: "predict_linear", args: []valueType{matrix, scalar}, returns: vector},
	"present_over_time":            {name: "present_over_time", args: []valueType{matrix}, returns: vector},
	"quantile_over_time":           {name: "quantile_over_time", args: []valueType{scalar, matrix}, returns: vector},
	"rad":                          {name: "rad", args: []valueType{vector}, returns: vector},
	"range":                        {name: "range", args: []valueType{}, returns: scalar},
	"rate":                         {name: "rate", args: []valueType{matrix}, returns: vector},
	"resets":                       {name: "resets", args: []valueType{matrix}, returns: vector},
	"round":                        {name: "round", args: []valueType{vector, scalar}, variadic: 1, returns: vector},
	"scalar":                       {name: "scalar", args: []valueType{vector}, returns: scalar},
	"sgn":                          {name: "sgn", args: []valueType{vector}, returns: vector},
	"sin":                          {name: "sin", args: []valueType{vector}, returns: vector},
	"sinh":                         {name: "sinh", args: []valueType{vector}, returns: vector},
	"sort":                         {name: "sort", args: []valueType{vector}, returns: vector},
	"sort_by_label":                {name: "sort_by_label", args: []valueType{vector, str}, variadic: -1, returns: vector},
	"sort_by_label_desc":           {name: "sort_by_label_desc", args: []valueType{vector, str}, variadic: -1, returns: vector},
	"sort_desc":                    {name: "sort_desc", args: []valueType{vector}, returns: vector},
	"sqrt":                         {name: "sqrt", args: []valueType{vector}, returns: vector},
	"start":                        {name: "start", args: []valueType{}, returns: scalar},
	"start_timestamp":              {name: "start_timestamp", args: []valueType{vector}, returns: vector},
	"stddev_over_time":             {name: "stddev_over_time", args: []valueType{matrix}, returns: vector},
	"stdvar_over_time":             {name: "stdvar_over_time", args: []valueType{matrix}, returns: vector},
	"step":                         {name: "step", args: []valueType{}, returns: scalar},
	"sum_over_time":                {name: "sum_over_time", args: []valueType{matrix}, returns: vector},
	"tan":                          {name: "tan", args: []valueType{vector}, returns: vector},
	"tanh":                         {name: "tanh", args: []valueType{vector}, returns: vector},
	"time":                         {name: "time", args: []valueType{}, returns: scalar},
	"timestamp":                    {name: "timestamp", args: []valueType{vector}, returns: vector},
	"ts_of_first_over_time":        {name: "ts_of_first_over_time", args: []valueType{matrix}, returns: vector},
	"ts_of_last_over_time":         {name: "ts_of_last_over_time", args: []valueType{matrix}, returns: vector},
	"ts_of_max_over_time":          {name: "ts_of_max_over_time", args: []valueType{matrix}, returns: vector},
	"ts_of_min_over_time":          {name: "ts_of_min_over_time", args: []valueType{matrix}, returns: vector},
	"vector":                       {name: "vector", args: []valueType{scalar}, returns: vector},
	"year":                         {name: "year", args: []valueType{vector}, variadic: 1, returns: vector},
}
